import {
  type BankList,
  bankCountries,
  findBank,
  type HostedSession,
  type ListBanksQuery,
  listBanks,
  MOCK_PROVIDER,
  type PaymentRecord,
  providerNotConfigured,
  reachableBank,
  sendToProvider,
  validationFailed,
} from '@pis/shared';
import type { z } from 'zod';
import { customerLink } from '../../links/customer-links.ts';
import { applyPaymentEvent } from '../apply-payment-event.ts';
import { startAtProvider } from '../create-payment.ts';
import { organizationView } from '../organization-view.ts';
import type { PaymentsDeps } from '../payments-deps.ts';
import { providerUnavailable } from '../refresh-payment.ts';
import { openLink, paymentSummary } from './open-link.ts';

const DEFAULT_COUNTRY = 'GB';

/** The hosted payment page: the payment, the bank (if chosen) and where the customer goes next. */
export async function hostedSession(deps: PaymentsDeps, token: string): Promise<HostedSession> {
  const { claims, record } = await openLink(deps, token, 'hosted');
  const organization = await organizationView(deps.em, record.organizationId);
  const context = { approvedProviders: organization.approvedProviders, baseUrl: deps.config.publicBaseUrl };
  const bank = record.bankId ? (findBank(record.bankId, context) ?? null) : null;
  const countries = bankCountries(context);
  return {
    ...paymentSummary(record, organization.name, claims),
    flowType: record.flowType,
    bank,
    countries,
    defaultCountry:
      bank?.country ??
      (countries.includes(DEFAULT_COUNTRY) ? DEFAULT_COUNTRY : (countries[0] ?? DEFAULT_COUNTRY)),
    next: waitingAtMockBank(record)
      ? // Bound by this hosted link: an old hosted link cannot mint a Mock bank link that outlives it.
        {
          mockBankUrl: customerLink(deps.config, 'mock-bank', record.id, deps.clock.now(), claims.expiresAt)
            .url,
        }
      : null,
  };
}

/** A bank was chosen and the Mock bank waits for the customer: a reload sends them back there. */
const waitingAtMockBank = (payment: PaymentRecord) =>
  payment.provider === MOCK_PROVIDER && payment.status === 'AUTHORIZING' && !payment.approvedAt;

type BankFilters = z.output<typeof ListBanksQuery>;

/** Banks for the picker: those of the payment's provider, in the merchant's catalogue. */
export async function hostedBanks(
  deps: PaymentsDeps,
  token: string,
  filters: BankFilters,
): Promise<BankList> {
  const { record } = await openLink(deps, token, 'hosted');
  const organization = await organizationView(deps.em, record.organizationId);
  return listBanks(
    { ...filters, provider: record.provider },
    { approvedProviders: organization.approvedProviders, baseUrl: deps.config.publicBaseUrl },
  );
}

/**
 * The customer chose a bank: the payment goes to its provider (PENDING -> AUTHORIZING) and the
 * answer is the bank's page. The provider is asked first, so a failure there changes nothing;
 * the move itself is made under the row lock, so a second choice (double click, two tabs) is 409.
 * In the embedded flow the merchant already chose the bank; the page can only confirm it.
 */
export async function chooseBank(
  deps: PaymentsDeps,
  token: string,
  bankId: string,
): Promise<{ redirectUrl: string }> {
  const { record } = await openLink(deps, token, 'hosted');
  if (record.flowType === 'EMBEDDED_HOSTED_PAGES' && record.bankId && bankId !== record.bankId) {
    throw validationFailed([{ field: 'bankId', message: 'is fixed by the merchant for this payment' }]);
  }
  const organization = await organizationView(deps.em, record.organizationId);
  reachableBank(bankId, record.provider, {
    approvedProviders: organization.approvedProviders,
    baseUrl: deps.config.publicBaseUrl,
  });
  const provider = deps.providers.get(record.provider);
  if (!provider) throw providerNotConfigured(record.provider);

  const now = deps.clock.now();
  // Refuses early (409) when the payment has moved on, before the provider hears of it.
  const preview = sendToProvider(record, bankId, now);
  const redirectUrl = await startAtProvider(deps, provider, preview, now);
  if (!redirectUrl) throw providerUnavailable();
  await applyPaymentEvent(deps, { paymentId: record.id }, (payment, at) =>
    sendToProvider(payment, bankId, at),
  );
  return { redirectUrl };
}
