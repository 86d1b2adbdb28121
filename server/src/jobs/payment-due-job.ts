import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { timelineLag } from '../observability/metrics.ts';
import { defineJob } from './job-definition.ts';

/**
 * How much earlier than a step's due time its job becomes fetchable. Workers poll every 0.5 s,
 * so a job fetched from its due time onwards lands 0-0.5 s late; fetched this much early, the
 * handler waits out the rest and the step lands on time. Long enough for a burst of 10,000 jobs
 * to be fetched (several polls of BATCH jobs) before it is due.
 */
export const PAYMENT_DUE_LEAD_MS = 1_500;

/**
 * Jobs per fetch; with LOCAL_CONCURRENCY, how many steps one worker holds ready at their due
 * instant (10,000: issue 9's burst). Each group is caught up in one transaction, two statements
 * for the lot (see catch-up-payments.ts), so a large batch costs little more than a small one.
 */
const BATCH = 2_500;
const LOCAL_CONCURRENCY = 4;

export const PaymentDuePayload = z.object({
  paymentId: z.string().min(1),
  /** When the payment next changes by itself (ISO 8601), as the domain computed it. */
  dueAt: z.iso.datetime(),
});
export type PaymentDuePayload = z.infer<typeof PaymentDuePayload>;

/**
 * Payments' next timeline steps are due: catch them up. Jobs of a batch are grouped by due time
 * and each group is caught up in one transaction the moment it is due. The catch-up is
 * idempotent and runs under the payments' row locks, so a duplicate, late or concurrent job
 * changes nothing; a payment that moves on gets its next job from the catch-up itself.
 */
export const paymentDueJob = defineJob({
  name: 'payment.due',
  payload: PaymentDuePayload,
  queue: {
    // One queued job per payment and due time (singletonKey): a second send for a step is dropped.
    policy: 'short',
    // A catch-up takes milliseconds; a job still active after this was lost with its worker.
    expireInSeconds: 60,
    retryLimit: 5,
    retryDelay: 1,
    retryBackoff: true,
    deleteAfterSeconds: 60 * 60,
  },
  // Up to 4 x 2,500 due steps fetched ahead, one transaction per group, and no pause after a
  // full batch (npm run bench: 10,000 timelines due in the same second).
  work: {
    batchSize: BATCH,
    localConcurrency: LOCAL_CONCURRENCY,
    pollingIntervalSeconds: 0.5,
    burstWhenBatchFull: true,
  },
  handler: async (payloads, deps, stopping) => {
    const pending = payloads
      .map((payload) => ({ paymentId: payload.paymentId, dueAt: new Date(payload.dueAt).getTime() }))
      .sort((a, b) => a.dueAt - b.dueAt);
    while (pending.length > 0) {
      const early = (pending[0]?.dueAt ?? 0) - deps.clock.now().getTime();
      // +1 ms: the catch-up must see the step as due. Bounded: a test clock standing still must
      // not hold the jobs for ever.
      // A stopping worker does not sit out the lead: the sleep throws, and pg-boss hands the
      // jobs (those done already too: idempotent) to a worker that runs.
      if (early > 0)
        await sleep(Math.min(early + 1, PAYMENT_DUE_LEAD_MS + 1), undefined, { signal: stopping });
      const now = deps.clock.now().getTime();
      const dueCount = pending.filter((item) => item.dueAt <= now).length;
      // A clock that has not reached the first due time takes the lot: the catch-up skips what
      // is not due, and the sweep catches it up later.
      const group = pending.splice(0, dueCount > 0 ? dueCount : pending.length);
      await deps.catchUpPayments(group.map((item) => item.paymentId));
      const applied = deps.clock.now().getTime();
      for (const item of group) if (item.dueAt <= now) timelineLag.observe((applied - item.dueAt) / 1000);
    }
  },
});
