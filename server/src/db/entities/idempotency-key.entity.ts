import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { type CreatedPayment, PAYMENT_MODES } from '@pis/shared';
import { Organization } from './organization.entity.ts';
import { Payment } from './payment.entity.ts';

/**
 * A create request's `Idempotency-Key`, per organization and mode (a test key's and a live key's
 * are apart: the same key in the other mode is a new request). Claimed ("in progress": no payment,
 * no response yet) before the provider is called, completed in the same transaction as the
 * payment it created. Kept 24 h (older rows count as absent and are purged).
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  properties: {
    organization: () => p.manyToOne(Organization).mapToPk().primary().deleteRule('cascade'),
    mode: p.enum(PAYMENT_MODES).primary(),
    key: p.string().length(255).primary(),
    /** SHA-256 of the validated request, so a retry with another body is told apart. */
    requestHash: p.string().length(64),
    payment: () => p.manyToOne(Payment).mapToPk().deleteRule('cascade').nullable(),
    /** The original 201 body, answered again to a retry; null while the first request runs. */
    response: p.json<CreatedPayment>().nullable(),
    /** Which request holds an in-progress claim, so only that one completes or drops it. */
    claimToken: p.string().length(40).nullable(),
    createdAt: p.datetime(),
  },
  // The purge of keys older than 24 h.
  indexes: [{ name: 'idempotency_key_created_at_idx', properties: ['createdAt'] }],
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
