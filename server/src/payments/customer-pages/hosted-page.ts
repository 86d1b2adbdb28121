import {
  AppError,
  awaitsDecision,
  type BankList,
  bankCountries,
  byActor,
  CUSTOMER_ACTOR,
  findBank,
  type HostedSession,
  isPracticeBank,
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
import { pageBrand } from '../../organizations/brand.ts';
import type { PaymentEvent } from '../apply-payment-event.ts';
import type { PaymentsDeps } from '../payments-deps.ts';
import { claimedProviderCall } from '../provider-claims.ts';
import { openLink, paymentSummary } from './open-link.ts';

const DEFAULT_COUNTRY = 'GB';

/** The hosted payment page: the payment, the bank (if chosen) and where the customer goes next. */
export async function hostedSession(deps: PaymentsDeps, token: string): Promise<HostedSession> {
  const { claims, record, organization } = await openLink(deps, token, 'hosted');
  const context = {
    approvedProviders: organization.approvedProviders,
    baseUrl: deps.config.publicBaseUrl,
    liveOnly: record.mode === 'live',
  };
  const bank = record.bankId ? (findBank(record.bankId, context) ?? null) : null;
  // Where the payment's own provider reaches a bank: a euro provider's picker opens on its country.
  const countries = bankCountries(context, record.provider);
  return {
    ...paymentSummary(record, organization.name, claims),
    brand: await pageBrand(deps.em, organization),
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
  payment.provider === MOCK_PROVIDER && awaitsDecision(payment);

type BankFilters = z.output<typeof ListBanksQuery>;

/** Banks for the picker: those of the payment's provider, in the merchant's catalogue (no practice bank for a live payment). */
export async function hostedBanks(
  deps: PaymentsDeps,
  token: string,
  filters: BankFilters,
): Promise<BankList> {
  const { record, organization } = await openLink(deps, token, 'hosted');
  return listBanks(
    { ...filters, provider: record.provider },
    {
      approvedProviders: organization.approvedProviders,
      baseUrl: deps.config.publicBaseUrl,
      liveOnly: record.mode === 'live',
    },
  );
}

/**
 * The customer chose a bank: the payment goes to its provider (PENDING -> AUTHORIZING) and the
 * answer is the bank's page. The choice is claimed under the row lock before the provider hears
 * of it, so a second choice (double click, two tabs) or a cancel racing it is refused without a
 * second call; a provider failure changes nothing (see provider-claims.ts).
 * In the embedded flow the merchant already chose the bank; the page can only confirm it.
 */
export async function chooseBank(
  deps: PaymentsDeps,
  token: string,
  bankId: string,
  /** The customer's IP address, told to a bank that asks for it (PSU-IP-Address). */
  customerAddress?: string,
): Promise<{ redirectUrl: string }> {
  const { claims, record, organization } = await openLink(deps, token, 'hosted');
  if (record.flowType === 'EMBEDDED_HOSTED_PAGES' && record.bankId && bankId !== record.bankId) {
    throw validationFailed([{ field: 'bankId', message: 'is fixed by the merchant for this payment' }]);
  }
  reachableBank(bankId, record.provider, {
    approvedProviders: organization.approvedProviders,
    baseUrl: deps.config.publicBaseUrl,
  });
  if (record.mode === 'live' && isPracticeBank(bankId)) {
    throw new AppError(
      'PRACTICE_BANK_TEST_ONLY',
      'This bank is for practice only and cannot take a live payment',
    );
  }
  const provider = deps.providers.get(record.provider);
  if (!provider) throw providerNotConfigured(record.provider);

  // The customer chose the bank: the entry is theirs.
  const decision: PaymentEvent = (payment, at) =>
    byActor(CUSTOMER_ACTOR, sendToProvider)(payment, bankId, at);
  const { answer } = await claimedProviderCall(
    deps,
    { paymentId: record.id },
    {
      action: 'start',
      bankId,
      decision,
      call: async (claimed, claimedAt) => {
        const sent = decision(claimed, claimedAt).record;
        // The bank's link never outlives the hosted link that led to it.
        const { customerUrl } = await provider.startPayment(sent, claimedAt, {
          linkNotAfter: claims.expiresAt,
          customerAddress,
        });
        if (!customerUrl) throw new Error(`${provider.code} gave no customer link`);
        return customerUrl;
      },
    },
  );
  return { redirectUrl: answer };
}
