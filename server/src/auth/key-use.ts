import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';

/**
 * "Last used" for the API keys page, off the request's path: at most one write per key per
 * minute. This process skips keys it wrote less than a minute ago (no round trip at all), and
 * the UPDATE itself only changes a row last written over a minute ago, so many instances
 * together still write a key at most about once a minute. Fired without awaiting: a slow or
 * failed write never delays or fails the API call (it is logged).
 */
const EVERY_MS = 60_000;
/** Forget old entries past this many keys, so the map stays small on a busy instance. */
const MAX_REMEMBERED = 10_000;

const writtenAt = new Map<string, number>();
const inFlight = new Set<Promise<unknown>>();

const RECORD_USE = `update api_key set last_used_at = ?
  where id = ? and (last_used_at is null or last_used_at <= ?::timestamptz - interval '1 minute')`;

export function recordKeyUse(em: EntityManager, apiKeyId: string, now: Date, logger?: Logger): void {
  const last = writtenAt.get(apiKeyId);
  if (last !== undefined && now.getTime() - last < EVERY_MS) return;
  if (writtenAt.size >= MAX_REMEMBERED) writtenAt.clear();
  writtenAt.set(apiKeyId, now.getTime());
  const write = em
    .fork()
    .execute(RECORD_USE, [now, apiKeyId, now], 'run')
    .catch((error: unknown) => logger?.warn({ err: error, apiKeyId }, 'could not record API key use'))
    .finally(() => inFlight.delete(write));
  inFlight.add(write);
}

/** For tests (and a graceful stop): wait for the writes already fired. */
export async function settleKeyUseWrites(): Promise<void> {
  await Promise.all([...inFlight]);
}

/** For tests that move the clock: forget which keys this process wrote recently. */
export function forgetKeyUseWrites(): void {
  writtenAt.clear();
}
