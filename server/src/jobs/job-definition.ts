import type { Queue, WorkOptions } from 'pg-boss';
import type { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { MailJobDeps } from '../mail/mail-deliveries.ts';

/** What job handlers may use. The worker builds it once; handlers never reach for globals. */
export interface JobDeps {
  clock: Clock;
  logger: Logger;
  /**
   * Applies whatever became due for these payments, under their row locks, in one transaction,
   * and schedules their next steps. Idempotent. Resolves to how many payments changed.
   */
  catchUpPayments(paymentIds: readonly string[]): Promise<number>;
  /**
   * Catches up to `limit` due payments, oldest due first, skipping rows another transaction
   * holds; `found`: how many it took (fewer than `limit`: none left).
   */
  catchUpDuePayments(limit: number): Promise<{ found: number; changed: number }>;
  /** Ids of unfinished payments whose `next_due_at` is at or before `now`, oldest due first. */
  findDuePaymentIds(now: Date, limit: number): Promise<string[]>;
  /**
   * Asks the providers about every claim whose call never answered (payments/provider-claims.ts);
   * resolves to how many could not be settled yet.
   */
  reconcileProviderClaims(): Promise<{ open: number }>;
  /** Reads a payment at a real provider and queues its next poll (payments/poll-provider.ts). */
  pollProviderPayment?(paymentId: string, attempt: number): Promise<void>;
  /** Deletes Idempotency-Keys past their 24 h; resolves to how many went. */
  purgeExpiredIdempotencyKeys(now: Date): Promise<number>;
  /** Deletes rate-limit windows that have ended; resolves to how many went. */
  purgeRateLimitWindows(now: Date): Promise<number>;
  /** Deletes the stored answers of payments finished long ago (payments/payment-store.ts). */
  purgeFinishedAnswers(now: Date): Promise<number>;
  /** Sends a queued mail over SMTP; records one that failed for good (mail/mail-deliveries.ts). */
  mail: MailJobDeps;
}

/** One background job: its queue name, the payload it accepts, and what it does. */
export interface JobDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  payload: Schema;
  /** Queue settings (policy, retries, expiry), applied when the queue is first created. */
  queue: Omit<Queue, 'name'>;
  /** How a worker fetches this queue (batch size, parallel fetchers, polling). */
  work: Pick<WorkOptions, 'batchSize' | 'localConcurrency' | 'pollingIntervalSeconds' | 'burstWhenBatchFull'>;
  /**
   * Handles one fetched batch (payloads already validated). Resolving completes every job of the
   * batch; throwing fails them all, and pg-boss retries them: handlers must be idempotent.
   * `stopping` aborts when the worker stops: a handler waiting for something stops waiting and
   * throws, handing its jobs back (to this or another worker) instead of holding the shutdown.
   */
  handler(payloads: z.infer<Schema>[], deps: JobDeps, stopping: AbortSignal): Promise<void>;
}

/** Keeps the payload type attached to the handler. */
export const defineJob = <Schema extends z.ZodType>(job: JobDefinition<Schema>): JobDefinition<Schema> => job;
