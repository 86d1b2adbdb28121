import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PAYMENT_STATUSES } from '@pis/shared';
import { Organization } from './organization.entity.ts';

/**
 * The dashboard overview's numbers for days that can no longer change: per organization, UTC
 * creation day, status and currency, how many payments and their total. A payment lives at most
 * a day and a terminal status never changes, so once every payment of a day is finished its row
 * is final. Written and read only by payments/payment-overview.ts.
 */
export const PaymentDaySummary = defineEntity({
  name: 'PaymentDaySummary',
  tableName: 'payment_day_summary',
  properties: {
    organization: () => p.manyToOne(Organization).mapToPk().deleteRule('cascade').primary(),
    day: p.string().columnType('date').primary(),
    status: p.enum(PAYMENT_STATUSES).primary(),
    currency: p.string().length(3).primary(),
    count: p.integer(),
    value: p.decimal('string').columnType('numeric'),
  },
});
export type PaymentDaySummary = InferEntity<typeof PaymentDaySummary>;

/** Up to when (exclusive, a UTC midnight) an organization's payments are in `payment_day_summary`. */
export const PaymentSummaryProgress = defineEntity({
  name: 'PaymentSummaryProgress',
  tableName: 'payment_summary_progress',
  properties: {
    organization: () => p.oneToOne(Organization).mapToPk().deleteRule('cascade').primary(),
    summarizedBefore: p.datetime(),
  },
});
export type PaymentSummaryProgress = InferEntity<typeof PaymentSummaryProgress>;
