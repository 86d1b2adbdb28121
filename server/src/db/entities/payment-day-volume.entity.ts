import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * The dashboard overview's volume: per organization, UTC creation day and currency, how many
 * payments COMPLETED and their total, so 30 days of volume cost a few hundred rows however many
 * payments an organization makes a day. Written only by the `payment_day_volume` triggers on
 * `payment` (statement-level, in the writing transaction, like `payment_count`); read only by
 * payments/payment-overview.ts. `slot` spreads one key over a few rows as in PaymentCount; only
 * the sum over slots means anything.
 */
export const PaymentDayVolume = defineEntity({
  name: 'PaymentDayVolume',
  tableName: 'payment_day_volume',
  properties: {
    organizationId: p.string().length(40).primary(),
    day: p.string().columnType('date').primary(),
    currency: p.string().length(3).primary(),
    slot: p.smallint().primary(),
    count: p.bigint('number'),
    value: p.decimal('string').columnType('numeric'),
  },
});
export type PaymentDayVolume = InferEntity<typeof PaymentDayVolume>;
