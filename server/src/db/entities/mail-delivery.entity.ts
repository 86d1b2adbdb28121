import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

export const MAIL_DELIVERY_STATUSES = ['queued', 'sent', 'failed'] as const;

/**
 * One mail handed to the background (mail/mail-outbox.ts): what it was for, to whom, and how it
 * went, so an operator can see mail that could not be sent (`npm run admin -- mail:failures`).
 * The message itself (with its single-use link) is never stored here: it travels only in the
 * pg-boss job, deleted once settled.
 */
export const MailDelivery = defineEntity({
  name: 'MailDelivery',
  tableName: 'mail_delivery',
  properties: {
    id: p.string().primary().length(40),
    purpose: p.string().length(40),
    toAddress: p.string().length(254),
    status: p.enum(MAIL_DELIVERY_STATUSES),
    attempts: p.integer(),
    /** The last SMTP error (never the message), for the operator. */
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  indexes: [{ name: 'mail_delivery_status_created_at_idx', properties: ['status', 'createdAt'] }],
});
export type MailDelivery = InferEntity<typeof MailDelivery>;
