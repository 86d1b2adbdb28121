import type { Job, JobResult } from 'pg-boss';
import type { JobDefinition, JobDeps } from './job-definition.ts';
import type { JobQueue } from './job-queue.ts';
import { paymentSweepJob, SWEEP_INTERVAL_SECONDS } from './payment-sweep-job.ts';
import { JOBS } from './registry.ts';

export interface Worker {
  /** Stops fetching and waits for the handlers already running. pg-boss itself stays open. */
  stop(): Promise<void>;
}

/**
 * Works every registered queue in this process and asks for a sweep every few seconds. Any
 * number of processes may do this against one database: pg-boss hands each job to one worker,
 * the sweep queue lets one sweep run at a time, and the payment row locks settle the rest.
 */
export async function startWorker(queue: JobQueue, deps: JobDeps): Promise<Worker> {
  for (const job of JOBS) {
    await queue.boss.work(job.name, { ...job.work, perJobResults: true }, (jobs) =>
      handleBatch(job, jobs, deps),
    );
  }

  const requestSweep = (options: { throttled: boolean }) =>
    queue
      // Throttled, every process asks but one sweep per interval is queued cluster-wide.
      .send(paymentSweepJob, {}, options.throttled ? { singletonSeconds: SWEEP_INTERVAL_SECONDS } : {})
      .catch((error: unknown) => deps.logger.error({ err: error }, 'could not request a sweep'));
  // At once and unthrottled (this interval's slot may be taken by a sweep that already ran):
  // whatever fell due while no worker ran is caught up on start, not one interval later.
  await requestSweep({ throttled: false });
  const timer = setInterval(() => requestSweep({ throttled: true }), SWEEP_INTERVAL_SECONDS * 1000);
  timer.unref();

  let stopping: Promise<void> | undefined;
  return {
    stop: () => {
      stopping ??= (async () => {
        clearInterval(timer);
        await Promise.all(JOBS.map((job) => queue.boss.offWork(job.name, { wait: true })));
      })();
      return stopping;
    },
  };
}

/**
 * Validates each job's payload (one that does not parse never will: it is dead-lettered, not
 * retried), then hands the valid ones to the handler as one batch, settled together.
 */
async function handleBatch(job: JobDefinition, jobs: Job<unknown>[], deps: JobDeps): Promise<JobResult[]> {
  const valid: { id: string; payload: unknown }[] = [];
  const results: JobResult[] = [];
  for (const item of jobs) {
    const parsed = job.payload.safeParse(item.data);
    if (parsed.success) {
      valid.push({ id: item.id, payload: parsed.data });
    } else {
      deps.logger.error(
        { job: job.name, id: item.id, issues: parsed.error.issues },
        'job payload is invalid',
      );
      results.push({ id: item.id, status: 'deadletter' });
    }
  }
  if (valid.length === 0) return results;
  try {
    await job.handler(
      valid.map((item) => item.payload),
      deps,
    );
    return [...results, ...valid.map(({ id }): JobResult => ({ id, status: 'completed' }))];
  } catch (error) {
    deps.logger.warn(
      { err: error, job: job.name, jobs: valid.length },
      'job batch failed; pg-boss retries it',
    );
    const output = { message: error instanceof Error ? error.message : String(error) };
    return [...results, ...valid.map(({ id }): JobResult => ({ id, status: 'failed', output }))];
  }
}
