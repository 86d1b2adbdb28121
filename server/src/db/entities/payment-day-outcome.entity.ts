import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * The overview's outcomes per organization, UTC creation day, kind (`status`, `bank`, `reason`,
 * `seconds`) and key: how many finished payments. Written only by the `payment_day_outcome`
 * triggers on `payment` (Migration20261125174000_payment_day_outcome), read only by
 * payments/payment-overview.ts. Only the sum over `slot` means anything.
 */
export const PaymentDayOutcome = defineEntity({
  name: 'PaymentDayOutcome',
  tableName: 'payment_day_outcome',
  properties: {
    organizationId: p.string().length(40).primary(),
    day: p.string().columnType('date').primary(),
    kind: p.string().length(8).primary(),
    key: p.string().length(100).primary(),
    slot: p.smallint().primary(),
    count: p.bigint('number'),
  },
});
export type PaymentDayOutcome = InferEntity<typeof PaymentDayOutcome>;
