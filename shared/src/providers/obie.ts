import { type MockBankDefinition, PAYMENTS_ONLY, stableUuid, UK } from '../bank-catalogue.ts';
import type { ReasonCode } from '../state-machine.ts';
import type { BankReport, BankTarget, ProviderDescriptor } from './provider-descriptor.ts';

/**
 * The `obie` provider's shared half: UK Open Banking (Read/Write v4.0) statuses, the one table
 * that maps them to ours (issue 19), and its banks. The consent's status and the bank's payment
 * status are kept on the payment as reported (`provider_status`: `consent`, `payment`); this
 * table only says what they mean for the merchant. The bank's payment status, once there is
 * one, decides; before it, the consent.
 */
export const OBIE_PROVIDER = 'obie';

type ObieTarget = BankTarget;

/** Consent statuses (OBReadConsentResponse Data.Status) before any payment exists. */
export const OBIE_CONSENT_MAP: Record<string, ObieTarget> = {
  AWAU: { iso: 'PDNG', details: 'Consent awaiting the customer at the bank' },
  AUTH: { iso: 'ACTC', details: 'Consent authorised by the customer at the bank' },
  // COND: the payment was made under the consent; its own status then decides.
  COND: { iso: 'ACTC', details: 'Consent authorised by the customer at the bank' },
  RJCT: { iso: 'RJCT', reason: 'CUST', details: 'The customer refused or cancelled at the bank' },
};

/** Payment statuses (ISO 20022 external payment transaction status codes as OB uses them). */
export const OBIE_PAYMENT_MAP: Record<string, ObieTarget> = {
  RCVD: { iso: 'ACCP', details: 'Received by the bank' },
  ACCP: { iso: 'ACCP', details: 'Accepted by the bank for processing' },
  ACFC: { iso: 'ACCP', details: 'Funds checked by the bank' },
  ACSP: { iso: 'ACSP', details: 'Accepted for settlement' },
  ACWC: { iso: 'ACSP', details: 'Accepted for settlement with change' },
  ACSC: { iso: 'ACSC', details: 'Settlement completed' },
  ACCC: { iso: 'ACSC', details: 'Settlement completed on the creditor account' },
};

/** Bank reasons we carry as they are; any other rejection reason is NARR with the bank's words. */
const KNOWN_BANK_REASONS: readonly ReasonCode[] = ['AM04', 'AC04'];

export type ObieFacts = {
  consentStatus: string | null;
  bankStatus: string | null;
  /** The bank's StatusReason code on a rejected payment. */
  bankReason?: string | null;
  bankReasonText?: string | null;
};

/** Where these facts put the payment for the merchant; null when they say nothing we know. */
export function obieTarget(facts: ObieFacts): ObieTarget | null {
  if (facts.bankStatus) {
    if (facts.bankStatus === 'RJCT') {
      const known = KNOWN_BANK_REASONS.find((code) => code === facts.bankReason);
      return {
        iso: 'RJCT',
        reason: known ?? 'NARR',
        details: known
          ? `Rejected by the bank (${known})`
          : `Rejected by the bank${facts.bankReason ? ` (${facts.bankReason})` : ''}${facts.bankReasonText ? `: ${facts.bankReasonText}` : ''}`,
      };
    }
    return Object.hasOwn(OBIE_PAYMENT_MAP, facts.bankStatus)
      ? (OBIE_PAYMENT_MAP[facts.bankStatus] ?? null)
      : null;
  }
  // Own keys only: a bank's `__proto__` or `constructor` is not a status.
  return facts.consentStatus && Object.hasOwn(OBIE_CONSENT_MAP, facts.consentStatus)
    ? (OBIE_CONSENT_MAP[facts.consentStatus] ?? null)
    : null;
}

/** The facts as the core keeps them: where they put the payment, and the statuses as reported. */
export function obieReport(facts: ObieFacts): BankReport {
  const providerStatus: Record<string, string> = {};
  if (facts.consentStatus) providerStatus.consent = facts.consentStatus;
  if (facts.bankStatus) providerStatus.payment = facts.bankStatus;
  return { target: obieTarget(facts), providerStatus };
}

/**
 * Banks reached through `obie`: one per ASPSP connection the service can have. Today the
 * practice bank in `sandbox-bank/`; a real bank is one more entry here and one more connection
 * in the configuration.
 */
const OBIE_BANKS: readonly MockBankDefinition[] = [
  {
    id: 'obie-sandbox-bank',
    uuid: stableUuid('obie-sandbox-bank'),
    name: 'Sandbox Bank (Open Banking)',
    displayName: 'Sandbox Bank',
    country: 'GB',
    paymentMethods: UK,
    active: true,
    features: PAYMENTS_ONLY,
    brandColor: '#047857',
    providers: [OBIE_PROVIDER],
    practice: true,
  },
];

export const OBIE_DESCRIPTOR: ProviderDescriptor = {
  code: OBIE_PROVIDER,
  name: 'UK Open Banking',
  // Our link asks the bank for a fresh authorization request (PAR) each time it is opened.
  linkKind: 'ours',
  // What the service sent obie banks before providers had descriptors (UK.OBIE.IBAN included):
  // the ASPSP refuses what it does not take, and that refusal is the merchant's answer.
  currencies: 'any',
  accountSchemes: ['sortCode', 'iban'],
  bankRequiredForApiOnly: true,
  banks: OBIE_BANKS,
};
