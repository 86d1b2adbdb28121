import {
  type BankContext,
  bankCountries,
  listBanks,
  MOCK_PROVIDER,
  type NewPaymentOptions,
  type NewPaymentProvider,
  PROVIDERS,
  paymentProviders,
} from '@pis/shared';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from '../payments/payments-deps.ts';

type OptionsDeps = Pick<PaymentsDeps, 'providers'> & {
  config: Pick<PaymentsDeps['config'], 'publicBaseUrl' | 'hostedPagesEnabled'>;
};

/** Why a provider the organization may use cannot take a payment in this mode, in merchant words. */
type Unusable = 'practice-only' | 'not-configured' | 'no-bank';

const providerName = (code: string) =>
  paymentProviders([code]).find((entry) => entry.id === code)?.name ?? code;

/** The banks of `code` that take payments now (for a live session: no practice bank), by name. */
function banksOf(code: string, context: BankContext): NewPaymentProvider['banks'] {
  return bankCountries(context)
    .flatMap((country) => listBanks({ country, provider: code, page: 1, limit: 100 }, context).banks)
    .filter((bank) => bank.active && bank.features.payments)
    .map((bank) => ({ id: bank.id, name: bank.displayName ?? bank.name }));
}

/**
 * What "New payment" may offer the session (issue 34 items 3 and 9), from the rules the create
 * itself applies (shared create-rules: approved, configured, no practice bank for live): each
 * provider it can use now with the banks "Straight to the bank" can go to, or, when there is
 * none, why and what to ask the operator. The form offers nothing the create would refuse.
 */
export function newPaymentOptions(
  deps: OptionsDeps,
  caller: Pick<PaymentsCaller, 'organizationId' | 'approvedProviders' | 'mode'>,
): NewPaymentOptions {
  const mode = modeOf(caller);
  const context: BankContext = {
    approvedProviders: caller.approvedProviders,
    baseUrl: deps.config.publicBaseUrl,
    liveOnly: mode === 'live',
  };
  const providers: NewPaymentProvider[] = [];
  const unusable: { code: string; why: Unusable }[] = [];
  for (const code of new Set([MOCK_PROVIDER, ...caller.approvedProviders])) {
    if (mode === 'live' && code === MOCK_PROVIDER) continue;
    if (!deps.providers.get(code)) {
      unusable.push({ code, why: 'not-configured' });
      continue;
    }
    const needsBank = code !== MOCK_PROVIDER;
    const banks = needsBank ? banksOf(code, context) : [];
    if (needsBank && banks.length === 0) {
      const anyBank = banksOf(code, { ...context, liveOnly: false }).length > 0;
      unusable.push({ code, why: anyBank ? 'practice-only' : 'no-bank' });
      continue;
    }
    providers.push({ code, name: providerName(code), banks, needsBank });
  }
  return {
    mode,
    providers,
    unavailable: providers.length > 0 ? null : whyNothing(caller.organizationId, unusable),
    hostedPages: deps.config.hostedPagesEnabled,
  };
}

/** The real providers the service knows, for "ask the operator": "UK Open Banking or Berlin Group NextGenPSD2". */
const realProviderNames = PROVIDERS.filter((descriptor) => descriptor.code !== MOCK_PROVIDER)
  .map((descriptor) => descriptor.name)
  .join(' or ');

function whyNothing(organizationId: string, unusable: { code: string; why: Unusable }[]): string {
  const first = unusable.find(({ code }) => code !== MOCK_PROVIDER);
  if (!first) {
    return (
      'Live payments need a real bank connection, and your organization has none yet: the Mock bank ' +
      `takes test payments only. Ask the operator to approve your organization (id ${organizationId}) ` +
      `for a real provider (${realProviderNames}). Until then, switch to test data to practise.`
    );
  }
  const name = providerName(first.code);
  if (first.why === 'not-configured') {
    return `${name} is approved for your organization but not switched on in this service. Ask the operator to switch it on.`;
  }
  if (first.why === 'practice-only') {
    return (
      `${name} reaches only practice banks here (such as the Sandbox Bank), which take test payments only. ` +
      'Ask the operator to connect a real bank; until then, switch to test data to practise.'
    );
  }
  return `${name} reaches no bank that takes payments right now. Ask the operator which banks it can reach.`;
}
