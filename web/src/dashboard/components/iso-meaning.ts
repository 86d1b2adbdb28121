import { REJECT_REASONS } from '../../format/labels.ts';

interface Iso {
  code: string;
  name: string;
  description?: string | undefined;
  reason?: { code: string; name: string } | undefined;
}

/**
 * Where a payment stands at the bank, in a merchant's words; the ISO 20022 code and name go on
 * hover and focus (issue 34 item 11: `ACSC AcceptedSettlementCompleted` is not a sentence).
 */
const ISO_WORDS: Record<string, string> = {
  RCVD: 'Received',
  PDNG: 'Waiting for the customer',
  ACTC: 'Authorised by the customer',
  ACCP: 'Accepted at the bank',
  ACSP: 'Being settled',
  ACSC: 'Settled',
  RJCT: 'Rejected',
  CANC: 'Cancelled',
};

/** Why a payment was rejected, in words (the Mock bank's customers read the same hints). */
const REASON_WORDS: Record<string, string> = {
  ...Object.fromEntries(REJECT_REASONS.map((reason) => [reason.code, reason.hint.toLowerCase()])),
  CUST: 'the customer refused',
  NOAS: 'the customer did not approve in time',
};

export const isoWords = (iso: Iso): string => ISO_WORDS[iso.code] ?? iso.name;

/** The ISO status as the API names it, for the tooltip. */
export const isoMeaning = (iso: Iso): string =>
  `ISO 20022 ${iso.code} ${iso.name}${iso.description ? `: ${iso.description}` : ''}`;

/**
 * The reason in words. Every cancel carries CUST (the spec maps a merchant's cancel to it too),
 * so a cancel says who cancelled instead (`who`: "by API key pis_test_ab…", "by Ada"), never
 * "requested by customer" for the merchant's own cancel.
 */
export const reasonWords = (iso: Iso, who?: string): string | null => {
  if (!iso.reason) return null;
  if (iso.code === 'CANC') return who ? `cancelled ${who}` : 'cancelled';
  return REASON_WORDS[iso.reason.code] ?? iso.reason.name;
};

export const reasonMeaning = (reason: { code: string; name: string }): string =>
  `ISO 20022 reason ${reason.code} ${reason.name}`;
