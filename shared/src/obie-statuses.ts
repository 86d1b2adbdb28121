import type { IsoCode, ReasonCode } from './state-machine.ts';

/**
 * UK Open Banking (Read/Write v4.0) statuses, and the one table that maps them to ours
 * (issue 19). The consent's status and the bank's payment status are kept on the payment as
 * facts of their own (`consentStatus`, `bankStatus`); this table only says what they mean for
 * the merchant. The bank's payment status, once there is one, decides; before it, the consent.
 */
export const OBIE_PROVIDER = 'obie';

export type ObieTarget = { iso: IsoCode; reason?: ReasonCode; details: string };

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
    return OBIE_PAYMENT_MAP[facts.bankStatus] ?? null;
  }
  return facts.consentStatus ? (OBIE_CONSENT_MAP[facts.consentStatus] ?? null) : null;
}
