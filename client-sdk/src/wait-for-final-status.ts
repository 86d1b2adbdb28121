import { isTerminal } from '@pis/shared';
import { PaymentsWaitTimeoutError } from './errors.ts';
import { nextPollDelayMs } from './polling-schedule.ts';
import { isRetryableFailure } from './retry-policy.ts';
import { abortableSleep, throwIfAborted } from './sleep.ts';
import type { FinalPayment, Payment } from './types.ts';

/** Default for {@link WaitForFinalStatusOptions.timeoutMs}: 15 minutes (the `slow` Mock bank preset takes 10). */
export const DEFAULT_WAIT_TIMEOUT_MS = 15 * 60_000;

/** Options of `payments.waitForFinalStatus`. */
export interface WaitForFinalStatusOptions {
  /** Stops waiting; the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /**
   * Called with the payment whenever its status differs from the last one seen, including the
   * first read. Awaited before the next read; if it throws, the wait stops with that error.
   */
  onUpdate?: ((payment: Payment) => void | Promise<void>) | undefined;
  /**
   * Give up after this long (default {@link DEFAULT_WAIT_TIMEOUT_MS}) with a
   * `PaymentsWaitTimeoutError` carrying the last payment read. An unfinished payment expires on
   * the service 24 hours after creation, so any wait ends eventually; this bounds your process.
   */
  timeoutMs?: number | undefined;
}

/**
 * Reads the payment on the schedule of `polling-schedule.ts` until its status is final.
 * A read that fails in a way worth retrying (no answer, 5xx, 429: already retried by the client)
 * is skipped and the schedule goes on; any other failure (401, 404, ...) ends the wait.
 */
export const waitForFinalStatus = async (
  read: (signal: AbortSignal) => Promise<Payment>,
  options: WaitForFinalStatusOptions = {},
): Promise<FinalPayment> => {
  const { signal, onUpdate } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  throwIfAborted(signal);

  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  // One signal for the reads: aborted by the caller, or at the deadline (so a hanging read
  // cannot outlive timeoutMs).
  const reads = new AbortController();
  const onCallerAbort = () => reads.abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const deadlineTimer = setTimeout(
    () => reads.abort(new DOMException('Wait timed out', 'TimeoutError')),
    timeoutMs,
  );

  let last: Payment | undefined;
  let lastFailure: unknown;
  const timedOut = () => new PaymentsWaitTimeoutError(timeoutMs, last, lastFailure);

  try {
    for (;;) {
      const readStartedAt = Date.now();
      try {
        const payment = await read(reads.signal);
        if (payment.status !== last?.status) {
          last = payment;
          await onUpdate?.(payment);
        }
        last = payment;
        if (isTerminal(payment.status)) return payment as FinalPayment;
      } catch (error) {
        throwIfAborted(signal);
        if (reads.signal.aborted) throw timedOut();
        if (!isRetryableFailure(error)) throw error;
        lastFailure = error;
      }
      const nextReadAt = readStartedAt + nextPollDelayMs(readStartedAt - startedAt);
      // Reads happen strictly before the deadline: one due exactly at it would be cut off anyway.
      if (nextReadAt >= deadline) {
        await abortableSleep(Math.max(0, deadline - Date.now()), signal);
        throw timedOut();
      }
      await abortableSleep(Math.max(0, nextReadAt - Date.now()), signal);
    }
  } finally {
    clearTimeout(deadlineTimer);
    signal?.removeEventListener('abort', onCallerAbort);
  }
};
