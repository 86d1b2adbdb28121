import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  AppError,
  type CreatedPayment,
  IDEMPOTENCY_KEY_TTL_MS,
  idempotencyKeyReused,
  type PaymentMode,
  stableJson,
} from '@pis/shared';
import { IdempotencyKey } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';

/**
 * `Idempotency-Key` on create (as Stripe's): a retry with the same key and the same request gets
 * the first answer and creates nothing; the same key with another request is a client bug (409).
 * Keys are per organization and mode (a live key's `order-42` is not a test key's: replaying one
 * across modes is a new request of its own mode) and kept 24 h; an older key counts as unused.
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
  /** The mode of the API key that sent it: test and live are two namespaces. */
  mode: PaymentMode;
  key: string;
  hash: string;
  /** This request's mark on the row while it is in progress. */
  token: string;
}

/**
 * An in-progress claim older than this belongs to a request that died (a create takes well under
 * a second; a provider call must give up well before this): a retry may take the key over. Kept
 * short because a merchant retrying after a crashed instance waits this long at most. A request
 * that outlives it cannot commit (completeIdempotencyKey), so nothing is created twice.
 */
export const ABANDONED_CLAIM_MS = 15_000;

/**
 * How long a claim stands after the provider's answer never came (it may have started the
 * payment): long enough for a slow bank to settle, so a retry does not start a second one.
 */
export const UNKNOWN_OUTCOME_HOLD_MS = 2 * 60_000;

export const idempotencyKeyInProgress = () =>
  new AppError(
    'IDEMPOTENCY_KEY_IN_PROGRESS',
    'A request with this Idempotency-Key is still being processed; retry shortly to get its result',
  );

/**
 * Claims the key for this request before anything else happens (before any provider call), in
 * one statement: a new row "in progress", or a row taken over when it is past its 24 h or an
 * abandoned claim. Otherwise the row that stands decides: another request's fingerprint is 409
 * IDEMPOTENCY_KEY_REUSED, one still in progress 409 IDEMPOTENCY_KEY_IN_PROGRESS, a finished one
 * is answered again (the returned response). Undefined: the key is this request's now, and it
 * must be completed (completeIdempotencyKey) or dropped (dropIdempotencyClaim).
 *
 * A concurrent duplicate's insert waits on the primary key until this one commits, then sees
 * the claim: two duplicates never both reach the provider.
 */
export async function claimIdempotencyKey(
  em: EntityManager,
  claim: IdempotencyClaim,
  now: Date,
): Promise<CreatedPayment | undefined> {
  const fork = em.fork();
  const claimed = await fork.execute<{ claim_token: string }[]>(
    `insert into idempotency_key (organization_id, mode, key, request_hash, payment_id, response, claim_token, created_at)
     values (?, ?, ?, ?, null, null, ?, ?)
     on conflict (organization_id, mode, key) do update
       set request_hash = excluded.request_hash, payment_id = null, response = null,
           claim_token = excluded.claim_token, created_at = excluded.created_at
       where idempotency_key.created_at <= ?
          or (idempotency_key.response is null and idempotency_key.created_at <= ?)
     returning claim_token`,
    [
      claim.organizationId,
      claim.mode,
      claim.key,
      claim.hash,
      claim.token,
      now,
      new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS),
      new Date(now.getTime() - ABANDONED_CLAIM_MS),
    ],
  );
  if (claimed[0]?.claim_token === claim.token) return undefined;
  const row = await fork.findOne(IdempotencyKey, {
    organization: claim.organizationId,
    mode: claim.mode,
    key: claim.key,
  });
  // Purged between the two statements: a 24 h old key, free again; the retry claims it.
  if (!row) throw idempotencyKeyInProgress();
  if (row.requestHash !== claim.hash) throw idempotencyKeyReused();
  if (!row.response) throw idempotencyKeyInProgress();
  return row.response;
}

/**
 * Inside the transaction that creates the payment: the claim becomes the stored answer. If this
 * request no longer holds the claim (it ran past ABANDONED_CLAIM_MS and a retry took the key),
 * the transaction must not commit: this throws.
 */
export async function completeIdempotencyKey(
  em: EntityManager,
  claim: IdempotencyClaim,
  paymentId: string,
  response: CreatedPayment,
): Promise<void> {
  const updated = await em.nativeUpdate(
    IdempotencyKey,
    { organization: claim.organizationId, mode: claim.mode, key: claim.key, claimToken: claim.token },
    { payment: paymentId, response, claimToken: null },
  );
  if (updated !== 1) throw idempotencyKeyInProgress();
}

/** The request failed before creating anything: the key is free for a retry. */
export async function dropIdempotencyClaim(em: EntityManager, claim: IdempotencyClaim): Promise<void> {
  await em.fork().nativeDelete(IdempotencyKey, {
    organization: claim.organizationId,
    mode: claim.mode,
    key: claim.key,
    claimToken: claim.token,
  });
}

/** How often a claim that could not be settled is tried again (settleFailedClaim). */
export const SETTLE_RETRY_MS = 250;

/**
 * Claims this process is still trying to settle, at most: a long outage under many creates must
 * not grow a loop (and a pool wait) per failed request; past it a claim frees itself as before.
 */
export const SETTLING_AT_MOST = 100;
let settling = 0;
/** Aborted when the process stops (stopSettlingClaims): a stopping process does not keep trying. */
let stopping = new AbortController();

/**
 * A shutdown step, before the database closes: the claims still being settled are left to free
 * themselves (ABANDONED_CLAIM_MS), as before this retry existed, and do not hold the exit up.
 */
export async function stopSettlingClaims(): Promise<void> {
  stopping.abort();
  stopping = new AbortController();
}

/**
 * Settles a failed create's claim (`settle`: hold or drop it). When that fails too, because the
 * database is what failed (a failover cuts every connection), it is tried again in the background
 * until it lands or ABANDONED_CLAIM_MS has passed, when the claim counts as abandoned anyway; the
 * request's answer does not wait for it. Without this, a merchant's retry after a failover's 503
 * got 409 IDEMPOTENCY_KEY_IN_PROGRESS for up to ABANDONED_CLAIM_MS although the database was back
 * within seconds, and a hold that never landed lapsed into abandonment while the bank might still
 * start the payment. Both statements touch only this request's own claim (its token), never a
 * payment's stored answer: one that lands after a retry took the key over does nothing, and that
 * retry had waited out ABANDONED_CLAIM_MS, as it would have without this.
 */
export async function settleFailedClaim(settle: () => Promise<void>, logger: Logger): Promise<void> {
  try {
    await settle();
    return;
  } catch (error) {
    logger.warn({ err: error }, 'could not settle an Idempotency-Key claim; trying again in the background');
  }
  if (settling >= SETTLING_AT_MOST) return;
  settling++;
  const giveUpAt = performance.now() + ABANDONED_CLAIM_MS;
  const { signal } = stopping;
  void (async () => {
    try {
      while (performance.now() < giveUpAt && !signal.aborted) {
        // Unreferenced: a process that is stopping does not wait for this; the claim frees itself.
        await sleep(SETTLE_RETRY_MS * (0.5 + Math.random()), undefined, { ref: false });
        if (signal.aborted) return;
        try {
          await settle();
          logger.info('an Idempotency-Key claim was settled once the database answered again');
          return;
        } catch {}
      }
      logger.warn('an Idempotency-Key claim could not be settled; it counts as abandoned from now on');
    } finally {
      settling--;
    }
  })();
}

/**
 * Keeps this request's claim for `UNKNOWN_OUTCOME_HOLD_MS` from now (its stamp moved forward, so it
 * is taken over only after that), when the provider may or may not have started the payment.
 */
export async function holdIdempotencyClaim(
  em: EntityManager,
  claim: IdempotencyClaim,
  now: Date,
): Promise<void> {
  await em
    .fork()
    .nativeUpdate(
      IdempotencyKey,
      { organization: claim.organizationId, mode: claim.mode, key: claim.key, claimToken: claim.token },
      { createdAt: new Date(now.getTime() + UNKNOWN_OUTCOME_HOLD_MS - ABANDONED_CLAIM_MS) },
    );
}

/** Deletes keys past their 24 h; for a periodic job. Returns how many went. */
export async function purgeExpiredIdempotencyKeys(em: EntityManager, now: Date): Promise<number> {
  return em
    .fork()
    .nativeDelete(IdempotencyKey, { createdAt: { $lte: new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS) } });
}
