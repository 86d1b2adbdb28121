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
