import { isTerminal, MAX_WAIT_SECONDS } from '@pis/shared';
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

/** What one read of the payment answered: the payment, its ETag, and whether the server waited. */
export interface PaymentRead {
  payment: Payment;
  /** The `ETag` header, when the server sends one. */
  etag: string | undefined;
  /** `Preference-Applied` came back: the server honours `Prefer: wait` (it waited, or had news at once). */
  waitHonoured: boolean;
}

/** A read that may wait: `If-None-Match: etag` and `Prefer: wait=waitSeconds`. */
export interface ReadCondition {
  etag: string;
  waitSeconds: number;
}

export type ReadPayment = (signal: AbortSignal, condition?: ReadCondition) => Promise<PaymentRead>;

/**
 * Reads the payment until its status is final. When the service honours `Prefer: wait` (it
 * answers `Preference-Applied`), each read after the first waits on the server until the
 * payment changes: one read per change, answered the moment it happens. A service that does not
 * (any server that implements the spec) is read on the schedule of `polling-schedule.ts`; the
 * one waiting read that found out counts as that schedule's read.
 *
 * A read that fails in a way worth retrying (no answer, 5xx, 429: already retried by the client)
 * is skipped and the schedule goes on; any other failure (401, 404, ...) ends the wait.
 */
export const waitForFinalStatus = async (
  read: ReadPayment,
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
  // Unknown until a waiting read has been answered: then `true` (wait again at once) or `false` (poll).
  let serverWaits: boolean | undefined;
  let etag: string | undefined;

  try {
    for (;;) {
      const readStartedAt = Date.now();
      const waitSeconds = Math.min(MAX_WAIT_SECONDS, Math.floor((deadline - readStartedAt) / 1000));
      const condition =
        etag !== undefined && serverWaits !== false && waitSeconds >= 1 ? { etag, waitSeconds } : undefined;
      let failed = false;
      let statusChanged = false;
      try {
        const answer = await read(reads.signal, condition);
        const { payment } = answer;
        if (condition) serverWaits = answer.waitHonoured;
        etag = answer.etag;
        if (payment.status !== last?.status) {
          statusChanged = true;
          await onUpdate?.(payment);
        }
        last = payment;
        if (isTerminal(payment.status)) return payment as FinalPayment;
      } catch (error) {
        throwIfAborted(signal);
        if (reads.signal.aborted) throw timedOut();
        if (!isRetryableFailure(error)) throw error;
        lastFailure = error;
        failed = true;
      }
      // The server waits (or may: the first read gave an ETag, find out at once): read again
      // now, unless less than a second is left to wait or the read failed (then the poll gap).
      // A waiting read that brought no new status also takes the poll gap: a server that really
      // held it for its wait is past that gap already, and one that claims to wait but answers
      // at once (a lie, a cache, a bug) is read no faster than a server that does not wait.
      const canWait = etag !== undefined && serverWaits !== false && deadline - Date.now() >= 1000;
      if (canWait && !failed && (statusChanged || !condition)) continue;
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
