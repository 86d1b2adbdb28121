import { PaymentsApiError, PaymentsConnectionError } from './errors.ts';

/** First backoff ceiling; doubles per attempt (0.5 s, 1 s, 2 s, ...). */
export const INITIAL_RETRY_DELAY_MS = 500;
/** No single backoff wait is longer than this. */
export const MAX_RETRY_DELAY_MS = 8_000;
/**
 * A `Retry-After` longer than this is not slept through inside one call: the error is thrown
 * and the caller decides (it carries `retryAfterMs`).
 */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Whether a failed attempt may be tried again. Only failures where the service either never saw
 * the request or refused it before doing anything: no answer at all, 5xx, 429 (rate limited), and
 * 409 IDEMPOTENCY_KEY_IN_PROGRESS (a create whose first try is still claimed: only requests sent
 * with the same Idempotency-Key get it). Any other 4xx is the caller's problem and retrying cannot fix it.
 */
export const isRetryableFailure = (error: unknown): boolean => {
  if (error instanceof PaymentsConnectionError) return true;
  if (error instanceof PaymentsApiError) {
    // The same key's first try still holds the claim (its answer was lost: an instance or the
    // database died under it); the service frees an abandoned claim within 15 s.
    if (error.status === 409 && error.code === 'IDEMPOTENCY_KEY_IN_PROGRESS') return true;
    return error.status >= 500 || error.status === 429;
  }
  return false;
};

/**
 * Exponential backoff with full jitter (AWS architecture blog): a uniform random wait between
 * 0 and min(cap, base * 2^attempt). Full jitter spreads a herd of clients retrying the same
 * outage better than a fixed or "equal" jitter. `attempt` counts from 0.
 */
export const backoffDelayMs = (attempt: number, random: () => number = Math.random): number =>
  Math.floor(random() * Math.min(MAX_RETRY_DELAY_MS, INITIAL_RETRY_DELAY_MS * 2 ** attempt));

/**
 * `Retry-After` as milliseconds: either delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * Undefined when absent or unreadable.
 */
export const parseRetryAfterMs = (value: string | null, now: number = Date.now()): number | undefined => {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
};
