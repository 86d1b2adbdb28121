import type { PaymentStatus } from '@pis/shared';

/**
 * The statuses in lifecycle order, for the filter. Written out rather than imported from
 * shared's runtime, which would bring zod into the bundle; the type below fails to compile if
 * shared gains a status this list lacks.
 */
export const STATUS_ORDER = [
  'PENDING',
  'AUTHORIZING',
  'AUTHORIZED',
  'SUBMITTED',
  'ACCEPTED',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'EXPIRED',
] as const satisfies readonly PaymentStatus[];

type Missing = Exclude<PaymentStatus, (typeof STATUS_ORDER)[number]>;
const complete: [Missing] extends [never] ? true : Missing = true;
void complete;

export const isPaymentStatus = (value: string | null): value is PaymentStatus =>
  (STATUS_ORDER as readonly string[]).includes(value ?? '');
