import { z } from 'zod';
import { isTerminal, PAYMENT_STATUSES, TERMINAL_STATUSES, type TerminalStatus } from './payment-statuses.ts';

/**
 * The payment state machine: statuses, the ISO 20022 table, the ISO -> service mapping,
 * terminal statuses and which moves are allowed. Everything that changes a payment asks here.
 */

export { isTerminal, PAYMENT_STATUSES, TERMINAL_STATUSES, type TerminalStatus };
export const PaymentStatus = z.enum(PAYMENT_STATUSES).meta({
  id: 'PaymentStatus',
  description: "The service's status of a payment; COMPLETED, FAILED, CANCELLED and EXPIRED are final",
});
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const ISO_CODES = ['RCVD', 'PDNG', 'ACTC', 'ACCP', 'ACSP', 'ACSC', 'RJCT', 'CANC'] as const;
export const IsoCode = z
  .enum(ISO_CODES)
  .meta({ id: 'IsoCode', description: 'ISO 20022 ExternalPaymentTransactionStatus1Code' });
export type IsoCode = z.infer<typeof IsoCode>;

export const REASON_CODES = ['AM04', 'AC04', 'CUST', 'NOAS', 'NARR'] as const;
export const ReasonCode = z
  .enum(REASON_CODES)
  .meta({ id: 'ReasonCode', description: 'ISO 20022 status reason code' });
export type ReasonCode = z.infer<typeof ReasonCode>;

/** ISO 20022 ExternalPaymentTransactionStatus1Code names and definitions. */
export const ISO_STATUS_TABLE: Record<IsoCode, { name: string; description: string }> = {
  RCVD: { name: 'Received', description: 'Payment initiation has been received by the receiving agent.' },
  PDNG: {
    name: 'Pending',
    description:
      'Payment initiation or individual transaction included in the payment initiation is pending. Further checks and status update will be performed.',
  },
  ACTC: {
    name: 'AcceptedTechnicalValidation',
    description: 'Authentication and syntactical and semantical validation are successful.',
  },
  ACCP: {
    name: 'AcceptedCustomerProfile',
    description:
      'Preceding check of technical validation was successful. Customer profile check was also successful.',
  },
  ACSP: {
    name: 'AcceptedSettlementInProcess',
    description:
      'All preceding checks such as technical validation and customer profile were successful and therefore the payment initiation has been accepted for execution.',
  },
  ACSC: {
    name: 'AcceptedSettlementCompleted',
    description: "Settlement on the debtor's account has been completed.",
  },
  RJCT: {
    name: 'Rejected',
    description:
      'Payment initiation or individual transaction included in the payment initiation has been rejected.',
  },
  CANC: {
    name: 'Cancelled',
    description:
      'Payment initiation or individual transaction included in the payment initiation has been cancelled before execution.',
  },
};

export const REASON_NAMES: Record<ReasonCode, string> = {
  AM04: 'InsufficientFunds',
  AC04: 'ClosedAccountNumber',
  CUST: 'RequestedByCustomer',
  NOAS: 'NoAnswerFromCustomer',
  NARR: 'Narrative',
};

export const IsoReason = z.object({ code: ReasonCode, name: z.string() }).meta({ id: 'IsoReason' });
export const IsoStatus = z
  .object({
    code: IsoCode,
    name: z.string(),
    description: z.string(),
    reason: IsoReason.optional().meta({ description: 'Present only on RJCT and CANC' }),
  })
  .meta({ id: 'IsoStatus', description: 'The ISO 20022 status, with its name and definition' });
export type IsoStatus = z.infer<typeof IsoStatus>;

const SERVICE_STATUS_OF: Record<IsoCode, PaymentStatus> = {
  RCVD: 'PENDING',
  PDNG: 'AUTHORIZING',
  ACTC: 'AUTHORIZED',
  ACCP: 'SUBMITTED',
  ACSP: 'ACCEPTED',
  ACSC: 'COMPLETED',
  RJCT: 'FAILED',
  CANC: 'CANCELLED',
};

/** Each ISO status maps to exactly one service status; RJCT with NOAS is an expiry. */
export const serviceStatusOf = (code: IsoCode, reason?: ReasonCode | null): PaymentStatus =>
  code === 'RJCT' && reason === 'NOAS' ? 'EXPIRED' : SERVICE_STATUS_OF[code];

/** The ISO status object for a code, with the reason only where ISO carries one. */
export const isoStatusOf = (code: IsoCode, reason?: ReasonCode | null): IsoStatus => {
  const { name, description } = ISO_STATUS_TABLE[code];
  const carriesReason = (code === 'RJCT' || code === 'CANC') && reason;
  return carriesReason
    ? { code, name, description, reason: { code: reason, name: REASON_NAMES[reason] } }
    : { code, name, description };
};

/** Progress order of the unfinished statuses: a payment only ever moves forward. */
const PROGRESS: Record<Exclude<PaymentStatus, TerminalStatus>, number> = {
  PENDING: 0,
  AUTHORIZING: 1,
  AUTHORIZED: 2,
  SUBMITTED: 3,
  ACCEPTED: 4,
};

/**
 * Whether `from -> to` is a legal move: never out of a terminal status, never backwards,
 * never to the same status; any unfinished payment may finish (complete, fail, cancel, expire).
 */
export const canTransition = (from: PaymentStatus, to: PaymentStatus): boolean => {
  if (isTerminal(from) || from === to) return false;
  if (isTerminal(to)) return to !== 'COMPLETED' || PROGRESS[from] >= PROGRESS.AUTHORIZING;
  return PROGRESS[to] > PROGRESS[from];
};
