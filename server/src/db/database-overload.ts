/**
 * Whether an error means "the database cannot serve right now", not "this request is wrong":
 * - saturated: a statement cancelled by `statement_timeout` (57014), a lock wait past
 *   `lock_timeout` (55P03), or no pooled connection within the acquire timeout (pg-pool's own
 *   message);
 * - unreachable for a moment (issue 30, a failover): the connection refused, reset or ended
 *   under a statement (the leader died, HAProxy cut its sessions), Postgres shutting down or
 *   still starting (57P01-57P03), a connection exception (class 08), or a write that reached a
 *   node that is no longer the leader (25006) in the instant before HAProxy moved.
 * The client gets 503 `SERVICE_UNAVAILABLE` with `Retry-After` instead of a 500. A transaction
 * cut by a lost connection is rolled back by Postgres (or was committed on the synchronous
 * standby too): a create retried with its Idempotency-Key answers the payment, or makes it once.
 */
export function isDatabaseOverload(error: unknown): boolean {
  // The ORM wraps the driver's error (`previous`), tRPC wraps ours (`cause`): follow both a little way.
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (isUnavailable(current)) return true;
    current = (current as { previous?: unknown }).previous ?? current.cause;
  }
  return false;
}

const UNAVAILABLE_CODES = new Set([
  // Saturated.
  '57014',
  '55P03',
  // admin_shutdown, crash_shutdown, cannot_connect_now.
  '57P01',
  '57P02',
  '57P03',
  // read_only_sql_transaction: a write on a demoted leader.
  '25006',
  // Node's socket errors (pg passes them through).
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|connection timeout|Connection terminated|connection error and is not queryable|terminating connection|the database system is (starting up|shutting down|in recovery)|Client was closed and is not queryable/i;

function isUnavailable(error: Error): boolean {
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/** Seconds a client is asked to wait after an overload answer. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;
