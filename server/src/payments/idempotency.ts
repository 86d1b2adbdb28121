import { createHash } from 'node:crypto';
import { type CreatedPayment, IDEMPOTENCY_KEY_TTL_MS, idempotencyKeyReused, stableJson } from '@pis/shared';
import { IdempotencyKey } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/**
 * `Idempotency-Key` on create (as Stripe's): a retry with the same key and the same request gets
 * the first answer and creates nothing; the same key with another request is a client bug (409).
 * Keys are per organization and kept 24 h; an older key counts as unused.
 */
/**
 * Fingerprint of the validated request. Hashing the parsed command (not the raw bytes) means
 * key order, whitespace, `10.5` vs `"10.5"` and spelled-out defaults count as the same request.
 */
export function requestHash(command: unknown): string {
  return createHash('sha256').update(stableJson(command)).digest('hex');
}

export interface IdempotencyClaim {
  organizationId: string;
  key: string;
  hash: string;
}

/** The stored answer for this key, if it is live; 409 when it was used for another request. */
export async function findReplay(
  em: EntityManager,
  claim: IdempotencyClaim,
  now: Date,
): Promise<CreatedPayment | undefined> {
  const row = await em.fork().findOne(IdempotencyKey, {
    organization: claim.organizationId,
    key: claim.key,
    createdAt: { $gt: new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS) },
  });
  if (!row) return undefined;
  if (row.requestHash !== claim.hash) {
    throw idempotencyKeyReused();
  }
  return row.response;
}

/**
 * Claims the key inside the transaction that creates the payment. A concurrent request with
 * the same key blocks on the primary key until this one commits, then fails with a unique
 * violation and answers the stored response instead (see create-payment.ts).
 */
export async function claimKey(
  em: EntityManager,
  claim: IdempotencyClaim,
  paymentId: string,
  response: CreatedPayment,
  now: Date,
): Promise<void> {
  // An expired key may be reused: drop the old row first, in the same transaction.
  await em.nativeDelete(IdempotencyKey, {
    organization: claim.organizationId,
    key: claim.key,
    createdAt: { $lte: new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS) },
  });
  em.create(IdempotencyKey, {
    organization: claim.organizationId,
    key: claim.key,
    requestHash: claim.hash,
    payment: paymentId,
    response,
    createdAt: now,
  });
}

/** Deletes keys past their 24 h; for a periodic job. Returns how many went. */
export async function purgeExpiredIdempotencyKeys(em: EntityManager, now: Date): Promise<number> {
  return em
    .fork()
    .nativeDelete(IdempotencyKey, { createdAt: { $lte: new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS) } });
}
