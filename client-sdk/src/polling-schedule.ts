/**
 * When `waitForFinalStatus` reads the payment, following the spec's client guidance ("read again
 * every few seconds during the first minute, then about once a minute"):
 *
 * - first read at once (t = 0);
 * - then every {@link FAST_POLL_INTERVAL_MS} (3 s) while less than {@link FAST_POLL_WINDOW_MS}
 *   (60 s) has passed since the wait began: t = 3 s, 6 s, ..., 57 s, 60 s;
 * - then every {@link SLOW_POLL_INTERVAL_MS} (60 s): t = 120 s, 180 s, ...
 *
 * Times count from the start of the wait and each gap runs from the start of the previous read,
 * so a slow answer does not push the schedule back. A Mock bank `realistic` payment approved at
 * once is therefore seen COMPLETED at t = 60 s; a `slow` one at t = 600 s.
 */
export const FAST_POLL_INTERVAL_MS = 3_000;
/** See {@link FAST_POLL_INTERVAL_MS}. */
export const FAST_POLL_WINDOW_MS = 60_000;
/** See {@link FAST_POLL_INTERVAL_MS}. */
export const SLOW_POLL_INTERVAL_MS = 60_000;

/**
 * Gap between a read that started `elapsedMs` after the wait began and the next read.
 * A function of its own so the schedule is one readable rule, not buried in a loop.
 */
export const nextPollDelayMs = (elapsedMs: number): number =>
  elapsedMs < FAST_POLL_WINDOW_MS ? FAST_POLL_INTERVAL_MS : SLOW_POLL_INTERVAL_MS;
