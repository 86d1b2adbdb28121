import { createHash } from 'node:crypto';
import { RateLimitWindow } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { preparedQuery } from '../db/prepared-query.ts';

/**
 * Rate-limit counters in Postgres, so every instance counts against the same budget.
 *
 * Fixed windows aligned to the epoch (a 60 s window runs :00-:59 of each minute): one row per key,
 * one upsert per hit, no read-then-write race (the row lock of `on conflict do update`
 * serialises concurrent hits on a key). A client can spend up to twice the limit around a window
 * boundary; that is the usual price of a fixed window (GitHub's and GoCardless's limits work the
 * same way) and buys one statement per request instead of a sliding log. Time is the database's
 * (`statement_timestamp()`), so instances whose clocks differ still agree on the window.
 */
export interface RateLimitRule {
  /**
   * What is counted, e.g. `api-read:<apiKeyId>` or `pages:<address>`. A key longer than the
   * column (200 characters, e.g. one built from an e-mail address) is stored as its SHA-256.
   */
  key: string;
  /** Hits allowed per window. */
  limit: number;
  windowSeconds: number;
  /** Only for tests: the instant to count at, instead of the database's clock. */
  now?: Date;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Hits left in this window after this one (0 when refused). */
  remaining: number;
  /** Whole seconds until the window resets (at least 1), for `Retry-After` and `RateLimit-Reset`. */
  resetSeconds: number;
}

const KEY_COLUMN_LENGTH = 200;

/**
 * The one statement shape that counts a hit, as two CTEs, `rate_clock` and `rate_hit`, so that
 * another statement can count in its own round trip (the API key lookup counts a proven key's
 * request: see authenticate-api-key.ts). `key` is the SQL for the counted key and `from` a FROM
 * item: one row counts one hit, none counts nothing. Placeholders, in order: the instant (null:
 * the database's clock), the window in seconds, then those in `key` and `from`. `rate_hit` returns
 * `hits` and `reset_seconds`.
 */
export const rateLimitHitCtes = (key: string, from: string) => `rate_clock as (
  select coalesce(?::timestamptz, statement_timestamp()) as t, ?::int as w
), rate_hit as (
  insert into rate_limit_window as r (key, window_start, resets_at, hits)
  select ${key}, s.start, s.start + make_interval(secs => rate_clock.w), 1
  from ${from}, rate_clock,
    lateral (select to_timestamp(floor(extract(epoch from rate_clock.t) / rate_clock.w) * rate_clock.w) as start) s
  on conflict (key) do update set
    -- A statement timed just before a window ended can take the row's lock after one timed in
    -- the next window: it counts in the newer window, never takes the row back to its own (which
    -- restarted the newer window's count: a budget's worth over the limit at a boundary).
    hits = case when r.window_start < excluded.window_start then 1 else r.hits + 1 end,
    window_start = greatest(r.window_start, excluded.window_start),
    resets_at = greatest(r.resets_at, excluded.resets_at)
  returning r.hits,
    least(ceil(extract(epoch from r.resets_at - (select t from rate_clock)))::int, (select w from rate_clock)) as reset_seconds
)`;

const CONSUME = {
  name: 'rate_limit_consume',
  sql: `with ${rateLimitHitCtes('?', '(select 1) as one')} select hits, reset_seconds from rate_hit`,
};

/** What `rate_hit` returned, against a limit. */
export function rateLimitResult(
  limit: number,
  row: { hits: number; reset_seconds: number },
): RateLimitResult {
  const hits = Number(row.hits);
  return {
    allowed: hits <= limit,
    limit,
    remaining: Math.max(0, limit - hits),
    resetSeconds: Math.max(1, Number(row.reset_seconds)),
  };
}

/**
 * Counts one hit against `rule.key` and says whether it is within the limit. One round trip, on
 * its own pooled connection: call it outside a transaction (it must count even when the
 * caller's work rolls back).
 */
export async function consumeRateLimit(em: EntityManager, rule: RateLimitRule): Promise<RateLimitResult> {
  checkWindow(rule.windowSeconds);
  const [row] = await preparedQuery<{ hits: number; reset_seconds: number }>(em, CONSUME, [
    rule.now?.toISOString() ?? null,
    rule.windowSeconds,
    rule.key.length <= KEY_COLUMN_LENGTH
      ? rule.key
      : `sha256:${createHash('sha256').update(rule.key).digest('hex')}`,
  ]);
  if (!row) throw new Error('rate limit upsert returned no row');
  return rateLimitResult(rule.limit, row);
}

function checkWindow(windowSeconds: number): void {
  if (!Number.isInteger(windowSeconds) || windowSeconds < 1) {
    throw new RangeError('windowSeconds must be a positive integer');
  }
}

/** Deletes windows that have ended (they count as empty already); for the periodic sweep. */
export async function purgeRateLimitWindows(em: EntityManager, now: Date): Promise<number> {
  return em.fork().nativeDelete(RateLimitWindow, { resetsAt: { $lte: now } });
}

/**
 * How many hits `key` has in its current window, without counting one (the dashboard's budgets):
 * 0 and the whole window when the key has no window running now. The database's clock, as counting uses.
 */
export async function peekRateLimit(
  em: EntityManager,
  key: string,
  windowSeconds: number,
): Promise<{ used: number; resetSeconds: number }> {
  checkWindow(windowSeconds);
  const rows = await em
    .fork()
    .getConnection()
    .execute<{ hits: number; reset_seconds: number }[]>(
      `select hits, least(ceil(extract(epoch from resets_at - statement_timestamp()))::int, ?::int) as reset_seconds
       from rate_limit_window where key = ? and resets_at > statement_timestamp()`,
      [
        windowSeconds,
        key.length <= KEY_COLUMN_LENGTH ? key : `sha256:${createHash('sha256').update(key).digest('hex')}`,
      ],
    );
  const row = rows[0];
  return row
    ? { used: Number(row.hits), resetSeconds: Math.max(1, Number(row.reset_seconds)) }
    : { used: 0, resetSeconds: windowSeconds };
}
