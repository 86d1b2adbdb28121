/**
 * Whether an error means "the database is saturated right now", not "this request is wrong":
 * a statement cancelled by `statement_timeout` (57014), a lock wait past `lock_timeout`
 * (55P03), or no pooled connection within the acquire timeout (pg-pool's own message). The
 * client gets 503 `SERVICE_UNAVAILABLE` with `Retry-After` instead of a 500.
 */
export function isDatabaseOverload(error: unknown): boolean {
  // The ORM wraps the driver's error (`previous`), tRPC wraps ours (`cause`): follow both a little way.
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const { code } = current as { code?: unknown };
    if (code === '57014' || code === '55P03') return true;
    if (/timeout exceeded when trying to connect|connection timeout/i.test(current.message)) return true;
    current = (current as { previous?: unknown }).previous ?? current.cause;
  }
  return false;
}

/** Seconds a client is asked to wait after an overload answer. */
export const OVERLOAD_RETRY_AFTER_SECONDS = 1;
