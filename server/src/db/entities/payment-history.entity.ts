import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { type Actor, ISO_CODES, PAYMENT_STATUSES, REASON_CODES } from '@pis/shared';
import { Payment } from './payment.entity.ts';

/** Append-only: one row per status a payment has had, `seq` 1, 2, ... in order. */
export const PaymentHistory = defineEntity({
  name: 'PaymentHistory',
  tableName: 'payment_history',
  properties: {
    payment: () => p.manyToOne(Payment).mapToPk().primary().deleteRule('cascade'),
    seq: p.integer().primary(),
    status: p.enum(PAYMENT_STATUSES),
    isoCode: p.enum(ISO_CODES),
    isoReason: p.enum(REASON_CODES).nullable(),
    provider: p.string().length(50).nullable(),
    details: p.text().nullable(),
    timestamp: p.datetime(),
    /** Made by advancing the payment's test clock, not by time passing. */
    simulated: p.boolean().default(false),
    /** Who made it (shared `Actor`); null when not known. */
    actor: p.json<Actor>().nullable(),
  },
});
export type PaymentHistory = InferEntity<typeof PaymentHistory>;
