import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PAYMENT_STATUSES } from '@pis/shared';

/**
 * Exact payment counts per organization, status and provider, so the list's `total` costs a
 * handful of rows however many payments an organization has made. Written only by the
 * `payment_count_track` trigger on `payment` (migration payment_counts), in the same
 * transaction as the payment write, so every path that writes a payment keeps it exact and no
 * code can forget to. Read only by payments/payment-totals.ts.
 *
 * `slot` spreads one key over a few rows (the writer's backend pid modulo 8): concurrent creates
 * of one organization would otherwise queue on a single counter row until each commits. A slot's
 * count may go negative (a payment counted in one slot and moved out of its status from another
 * connection); only the sum over slots means anything.
 */
export const PaymentCount = defineEntity({
  name: 'PaymentCount',
  tableName: 'payment_count',
  properties: {
    organizationId: p.string().length(40).primary(),
    status: p.enum(PAYMENT_STATUSES).primary(),
    provider: p.string().length(50).primary(),
    slot: p.smallint().primary(),
    count: p.bigint('number'),
  },
});
export type PaymentCount = InferEntity<typeof PaymentCount>;
