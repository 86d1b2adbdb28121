import { z } from 'zod';
import { defineJob, type JobDeps } from './job-definition.ts';

/** How often a sweep is asked for. One sweep runs at a time across every worker process. */
export const SWEEP_INTERVAL_SECONDS = 5;

const SWEEP_BATCH = 100;
/** A sweep stops after this long and leaves the rest to the next one, so it never outlives its job. */
const SWEEP_BUDGET_MS = 30_000;

export type SweepResult = { caughtUp: number; failed: number };

/**
 * Catches up every payment whose `next_due_at` has passed. The `payment.due` jobs normally get
 * there first; the sweep is the floor under them: a job lost with a crashed worker, a step due
 * while no worker ran, and expiries (24 h away at creation: left to the sweep rather than a
 * day-long deferred job per payment, see pg-boss-payment-scheduler.ts).
 */
export async function sweepDuePayments(
  deps: Pick<JobDeps, 'clock' | 'logger' | 'catchUpPayments' | 'findDuePaymentIds'>,
  options: { batch?: number; budgetMs?: number } = {},
): Promise<SweepResult> {
  const batch = options.batch ?? SWEEP_BATCH;
  const started = Date.now();
  // A payment handled once in this sweep and still due (its catch-up failed) waits for the next
  // sweep, so one bad row cannot spin the loop.
  const handled = new Set<string>();
  let caughtUp = 0;
  let failed = 0;
  for (;;) {
    const due = await deps.findDuePaymentIds(deps.clock.now(), batch);
    const ids = due.filter((id) => !handled.has(id));
    for (const id of ids) handled.add(id);
    try {
      caughtUp += await deps.catchUpPayments(ids);
    } catch (error) {
      // One bad payment must not hold back the others: retry them one by one to isolate it.
      deps.logger.warn({ err: error, payments: ids.length }, 'batch catch-up failed; retrying one by one');
      for (const id of ids) {
        try {
          caughtUp += await deps.catchUpPayments([id]);
        } catch (single) {
          failed++;
          deps.logger.error({ err: single, paymentId: id }, 'sweep could not catch up a payment');
        }
      }
    }
    if (due.length < batch || ids.length === 0) break;
    if (Date.now() - started > (options.budgetMs ?? SWEEP_BUDGET_MS)) break;
  }
  if (caughtUp > 0 || failed > 0) deps.logger.info({ caughtUp, failed }, 'sweep caught up overdue payments');
  return { caughtUp, failed };
}

export const paymentSweepJob = defineJob({
  name: 'payment.sweep',
  payload: z.object({}),
  queue: {
    // One sweep active at a time; the sender throttles to one per interval (singletonSeconds).
    policy: 'singleton',
    expireInSeconds: 120,
    retryLimit: 0,
    deleteAfterSeconds: 10 * 60,
  },
  work: { batchSize: 1, pollingIntervalSeconds: 1 },
  handler: async (_payloads, deps) => {
    await sweepDuePayments(deps);
    // Housekeeping on the same beat: keys older than 24 h count as unused already; this frees them.
    await deps.purgeExpiredIdempotencyKeys(deps.clock.now());
    await deps.purgeRateLimitWindows(deps.clock.now());
  },
});
