import type { JobDeps } from './job-definition.ts';

/**
 * How often each worker process sweeps. Every worker sweeps (no singleton, no lease), so after
 * a `kill -9` the others have caught up whatever the dead one held within about this long.
 */
export const SWEEP_INTERVAL_MS = 2_000;
/** Housekeeping (purging expired Idempotency-Keys and rate-limit windows) on a slower beat. */
export const HOUSEKEEPING_INTERVAL_MS = 60_000;
/** The stored answers of payments finished long ago, on the slowest: that purge reads them all. */
export const ANSWERS_PURGE_INTERVAL_MS = 60 * 60_000;

const SWEEP_BATCH = 100;
/** A sweep stops after this long and leaves the rest to the next one. */
const SWEEP_BUDGET_MS = 30_000;

export type SweepDeps = Pick<
  JobDeps,
  'clock' | 'logger' | 'catchUpPayments' | 'catchUpDuePayments' | 'findDuePaymentIds'
>;
export type SweepResult = { caughtUp: number; failed: number };

/**
 * Catches up every payment whose `next_due_at` has passed. The `payment.due` jobs normally get
 * there first; the sweep is the floor under them: a job lost with a crashed worker (its pg-boss
 * lease would hold it for a minute), a step due while no worker ran, and expiries (24 h away at
 * creation: left to the sweep rather than a day-long deferred job per payment, see
 * pg-boss-payment-scheduler.ts). Batches skip rows another transaction holds, so concurrent
 * sweeps in several processes share the work instead of queueing on it.
 */
export async function sweepDuePayments(
  deps: SweepDeps,
  options: { batch?: number; budgetMs?: number; stopping?: () => boolean } = {},
): Promise<SweepResult> {
  const batch = options.batch ?? SWEEP_BATCH;
  const started = Date.now();
  let caughtUp = 0;
  let failed = 0;
  for (;;) {
    let found: number;
    try {
      const result = await deps.catchUpDuePayments(batch);
      caughtUp += result.changed;
      found = result.found;
    } catch (error) {
      // One bad payment must not hold back the others: isolate it, one by one, then stop (the
      // next sweep tries again, so one bad row cannot spin this loop).
      deps.logger.warn({ err: error }, 'sweep batch failed; retrying one by one');
      for (const id of await deps.findDuePaymentIds(deps.clock.now(), batch)) {
        try {
          caughtUp += await deps.catchUpPayments([id]);
        } catch (single) {
          failed++;
          deps.logger.error({ err: single, paymentId: id }, 'sweep could not catch up a payment');
        }
      }
      break;
    }
    if (found < batch || options.stopping?.()) break;
    if (Date.now() - started > (options.budgetMs ?? SWEEP_BUDGET_MS)) break;
  }
  if (caughtUp > 0 || failed > 0) deps.logger.info({ caughtUp, failed }, 'sweep caught up overdue payments');
  return { caughtUp, failed };
}

/**
 * Keys older than 24 h already count as unused, ended rate-limit windows as empty, and the answers
 * of payments finished long ago as not stored; this frees them (the answers every
 * ANSWERS_PURGE_INTERVAL_MS, and at a worker's start).
 */
export async function houseKeeping(
  deps: Pick<
    JobDeps,
    'clock' | 'purgeExpiredIdempotencyKeys' | 'purgeRateLimitWindows' | 'purgeFinishedAnswers'
  >,
  { purgeAnswers = true }: { purgeAnswers?: boolean } = {},
): Promise<void> {
  await deps.purgeExpiredIdempotencyKeys(deps.clock.now());
  await deps.purgeRateLimitWindows(deps.clock.now());
  if (purgeAnswers) await deps.purgeFinishedAnswers(deps.clock.now());
}

export interface Sweeper {
  /** Stops the timers and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/** Sweeps at once (what fell due while no worker ran), then every SWEEP_INTERVAL_MS, one at a time per process. */
export function startSweeper(deps: JobDeps): Sweeper {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  let stopped = false;
  const run = (work: () => Promise<unknown>, what: string) => {
    if (busy || stopped) return;
    busy = true;
    running = work()
      .catch((error: unknown) => deps.logger.error({ err: error }, `${what} failed`))
      .finally(() => {
        busy = false;
      });
  };
  // A shutdown ends a sweep between batches (each a short transaction), not after 30 s.
  const sweepOptions = { stopping: () => stopped };
  const sweep = () => run(() => sweepDuePayments(deps, sweepOptions), 'sweep');
  let sinceHousekeeping = 0;
  let sinceAnswersPurge = 0;
  const tick = () => {
    sinceHousekeeping += SWEEP_INTERVAL_MS;
    sinceAnswersPurge += SWEEP_INTERVAL_MS;
    if (sinceHousekeeping >= HOUSEKEEPING_INTERVAL_MS) {
      sinceHousekeeping = 0;
      const purgeAnswers = sinceAnswersPurge >= ANSWERS_PURGE_INTERVAL_MS;
      if (purgeAnswers) sinceAnswersPurge = 0;
      run(async () => {
        await houseKeeping(deps, { purgeAnswers });
        await sweepDuePayments(deps, sweepOptions);
      }, 'housekeeping');
    } else {
      sweep();
    }
  };
  run(async () => {
    await houseKeeping(deps);
    await sweepDuePayments(deps, sweepOptions);
  }, 'first sweep');
  const timer = setInterval(tick, SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
