import type { Clock } from '../clock.ts';
import type { DuePayment, PaymentBatchScheduler } from '../payments/payment-scheduler.ts';
import type { JobQueue } from './job-queue.ts';
import { PAYMENT_DUE_LEAD_MS, paymentDueJob } from './payment-due-job.ts';
import { providerClaimJob } from './provider-claim-job.ts';
import { providerPollJob } from './provider-poll-job.ts';

/**
 * Due times further away than this get no job; the sweep (every few seconds) catches them up.
 * Timeline steps are at most an hour after approval, so every step gets a job; only the 24 h
 * expiry is left to the sweep, which spares every create a pg-boss insert and the job table a
 * day-long deferred row per payment.
 */
export const SCHEDULE_HORIZON_MS = 2 * 60 * 60 * 1000;

/** One queued job per payment and due time: the queue's `short` policy drops a second one. */
export const paymentDueKey = (paymentId: string, dueAt: Date) => `${paymentId}@${dueAt.toISOString()}`;

export function createPgBossPaymentScheduler(queue: JobQueue, clock: Clock): PaymentBatchScheduler {
  const paymentsDue = async (due: readonly DuePayment[]) => {
    const horizon = clock.now().getTime() + SCHEDULE_HORIZON_MS;
    const jobs = due
      .filter(({ dueAt }) => dueAt.getTime() <= horizon)
      .map(({ paymentId, dueAt }) => ({
        payload: { paymentId, dueAt: dueAt.toISOString() },
        // Fetchable a little early; the handler waits out the rest (see PAYMENT_DUE_LEAD_MS).
        options: {
          startAfter: new Date(dueAt.getTime() - PAYMENT_DUE_LEAD_MS),
          singletonKey: paymentDueKey(paymentId, dueAt),
        },
      }));
    if (jobs.length > 0) await queue.insert(paymentDueJob, jobs);
  };
  return {
    paymentsDue,
    paymentDue: (paymentId, dueAt) => paymentsDue([{ paymentId, dueAt }]),
    providerClaimDue: async (paymentId, dueAt) => {
      await queue.send(providerClaimJob, { paymentId }, { startAfter: dueAt });
    },
    providerPollDue: async (paymentId, attempt, dueAt) => {
      await queue.send(
        providerPollJob,
        { paymentId, attempt },
        { startAfter: dueAt, singletonKey: `${paymentId}#${attempt}` },
      );
    },
  };
}
