import { type MockBankDefinition, PAYMENTS_ONLY, stableUuid } from '../bank-catalogue.ts';
import type { BankReport, BankTarget, ProviderDescriptor } from './provider-descriptor.ts';

/**
 * The `nextgenpsd2` provider's shared half: Berlin Group NextGenPSD2 (XS2A) 1.3.11 single
 * payments with the redirect approach, the one table that maps its statuses to ours, and its
 * banks. The bank's statuses are kept on the payment as reported (`provider_status`:
 * `transaction`, and `sca` when it was read); this table only says what they mean for the
 * merchant. The server's adapter is `server/src/providers/nextgenpsd2/`; the MSW kit reuses this.
 */
export const NEXTGENPSD2_PROVIDER = 'nextgenpsd2';

/**
 * `transactionStatus` (ISO 20022 ExternalPaymentTransactionStatus1Code as XS2A uses it) -> ours.
 * The payment is initiated at the bank when it is created (there is no separate submit), so
 * `RCVD` is the payment waiting for the customer's SCA, and every status of an accepted payment
 * before settlement is the customer's approval. `RJCT` is not here: why it was rejected is read
 * from the other fields (`nextgenpsd2Target`).
 */
export const NEXTGENPSD2_STATUS_MAP: Readonly<Record<string, BankTarget>> = {
  RCVD: { iso: 'PDNG', details: 'Awaiting the customer at the bank' },
  ACTC: { iso: 'ACTC', details: 'Authorised by the customer at the bank' },
  ACCP: { iso: 'ACTC', details: 'Accepted by the bank (customer profile checked)' },
  ACFC: { iso: 'ACTC', details: 'Accepted by the bank (funds checked)' },
  // Some of the required authorisations are done, not all: still waiting at the bank (approval,
  // which stops our expiry, is ACTC).
  PATC: { iso: 'PDNG', details: 'Partially authorised at the bank: more authorisations needed' },
  PART: { iso: 'ACTC', details: 'Partially accepted by the bank' },
  ACSP: { iso: 'ACSP', details: 'Accepted for settlement' },
  ACWC: { iso: 'ACSP', details: 'Accepted for settlement with change' },
  ACWP: { iso: 'ACSP', details: 'Accepted for settlement, not yet posted' },
  ACSC: { iso: 'ACSC', details: 'Settlement completed' },
  ACCC: { iso: 'ACSC', details: 'Settlement completed on the creditor account' },
  // Deleted at the bank before the customer authorised it: only we do that (the merchant's cancel).
  CANC: { iso: 'CANC', reason: 'CUST', details: 'Cancelled at the bank before the customer authorised it' },
};

/** What the bank said about one payment: its status endpoint and, when read, the authorisation's SCA status. */
export type Nextgenpsd2Facts = {
  transactionStatus: string;
  /** `GET .../authorisations/{id}`: `failed` is the customer's refusal. */
  scaStatus?: string | null;
  /** The status body's `fundsAvailable`: `false` on a rejection is no funds. */
  fundsAvailable?: boolean | null;
  /** The status body's `psuMessage`: the bank's words, kept on an unexplained rejection. */
  psuMessage?: string | null;
};

/** Longest `psuMessage` carried into a payment's details (the document allows 500). */
const PSU_MESSAGE_MAX = 200;

/** Where these facts put the payment for the merchant; null when they say nothing we know. */
export function nextgenpsd2Target(facts: Nextgenpsd2Facts): BankTarget | null {
  if (facts.transactionStatus === 'RJCT') {
    // No funds is told by the status body itself (the SCA was finalised); the refusal by the SCA.
    if (facts.fundsAvailable === false)
      return { iso: 'RJCT', reason: 'AM04', details: 'Rejected by the bank: insufficient funds (AM04)' };
    if (facts.scaStatus === 'failed')
      return { iso: 'RJCT', reason: 'CUST', details: 'The customer refused at the bank' };
    const words = facts.psuMessage?.trim().slice(0, PSU_MESSAGE_MAX);
    return { iso: 'RJCT', reason: 'NARR', details: `Rejected by the bank${words ? `: ${words}` : ''}` };
  }
  return Object.hasOwn(NEXTGENPSD2_STATUS_MAP, facts.transactionStatus)
    ? (NEXTGENPSD2_STATUS_MAP[facts.transactionStatus] ?? null)
    : null;
}

/** The facts as the core keeps them: where they put the payment, and the statuses as reported. */
export function nextgenpsd2Report(facts: Nextgenpsd2Facts): BankReport {
  const providerStatus: Record<string, string> = { transaction: facts.transactionStatus };
  if (facts.scaStatus) providerStatus.sca = facts.scaStatus;
  return { target: nextgenpsd2Target(facts), providerStatus };
}

/** Sandbox Bank EU: the sandbox bank's Berlin Group face (sandbox-bank/README.md). */
export const NEXTGENPSD2_SANDBOX_BANK_ID = 'sandbox-bank-eu';

/**
 * Banks reached through `nextgenpsd2`: one per ASPSP connection the service can have. Today the
 * practice bank in `sandbox-bank/`; a real bank is one more entry here and one more connection
 * in the configuration.
 */
const NEXTGENPSD2_BANKS: readonly MockBankDefinition[] = [
  {
    id: NEXTGENPSD2_SANDBOX_BANK_ID,
    uuid: stableUuid(NEXTGENPSD2_SANDBOX_BANK_ID),
    name: 'Sandbox Bank EU',
    displayName: null,
    country: 'DE',
    paymentMethods: ['SEPA_CREDIT_TRANSFER', 'SEPA_INSTANT'],
    active: true,
    features: PAYMENTS_ONLY,
    brandColor: '#1d4ed8',
    providers: [NEXTGENPSD2_PROVIDER],
    practice: true,
  },
];

export const NEXTGENPSD2_DESCRIPTOR: ProviderDescriptor = {
  code: NEXTGENPSD2_PROVIDER,
  name: 'Berlin Group NextGenPSD2',
  // Our link (/providers/nextgenpsd2/authorize/:token) sends the customer on to the bank's page.
  linkKind: 'ours',
  // SEPA credit transfers: euro to an IBAN, cents at most.
  currencies: ['EUR'],
  accountSchemes: ['iban'],
  maxDecimals: 2,
  bankRequiredForApiOnly: true,
  expiryToldToBank: true,
  banks: NEXTGENPSD2_BANKS,
};
