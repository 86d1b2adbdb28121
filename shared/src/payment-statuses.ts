/**
 * The service statuses in lifecycle order, with no runtime dependency: the dashboard's chunk
 * imports this module alone (`@pis/shared/payment-statuses`) rather than shared's index, which
 * brings zod. The state machine builds its schema from the same list and re-exports these.
 */
export const PAYMENT_STATUSES = [
  'PENDING',
  'AUTHORIZING',
  'AUTHORIZED',
  'SUBMITTED',
  'ACCEPTED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'EXPIRED',
] as const;

export type PaymentStatusName = (typeof PAYMENT_STATUSES)[number];

/** Finished statuses: a payment in one never changes again. */
export const TERMINAL_STATUSES = [
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'EXPIRED',
] as const satisfies PaymentStatusName[];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export const isTerminal = (status: PaymentStatusName): status is TerminalStatus =>
  (TERMINAL_STATUSES as readonly PaymentStatusName[]).includes(status);

export const isPaymentStatus = (value: string | null | undefined): value is PaymentStatusName =>
  (PAYMENT_STATUSES as readonly string[]).includes(value ?? '');

/**
 * Each status as a word for people (the dashboard, e-mails, exports for humans); the API keeps
 * the upper-case values. "Awaiting customer" rather than "Authorizing": the merchant waits for
 * their customer to approve at the bank, and nothing of theirs is being authorised.
 */
export const PAYMENT_STATUS_LABELS: Readonly<Record<PaymentStatusName, string>> = {
  PENDING: 'Pending',
  AUTHORIZING: 'Awaiting customer',
  AUTHORIZED: 'Authorised',
  SUBMITTED: 'Submitted',
  ACCEPTED: 'Accepted',
  COMPLETED: 'Completed',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
  EXPIRED: 'Expired',
};

/**
 * What a status means for the merchant: paid, failed (the bank or the customer refused), stopped
 * without anyone failing (cancelled, expired), or still under way. A cancelled payment is not a
 * failure, so it must not look like one.
 */
export type StatusOutcome = 'paid' | 'failed' | 'stopped' | 'under-way';

export const statusOutcome = (status: PaymentStatusName): StatusOutcome =>
  status === 'COMPLETED'
    ? 'paid'
    : status === 'FAILED'
      ? 'failed'
      : status === 'CANCELLED' || status === 'EXPIRED'
        ? 'stopped'
        : 'under-way';
