import { SpanKind } from '@opentelemetry/api';
import type { Job } from 'pg-boss';
import { inSpan, jobBatchTrace } from '../observability/tracing.ts';
import type { JobDefinition, JobDeps } from './job-definition.ts';
import type { JobQueue } from './job-queue.ts';
import { JOBS } from './registry.ts';
import { startSweeper } from './sweeper.ts';

export interface Worker {
  /** Stops fetching and waits for the handlers already running. pg-boss itself stays open. */
  stop(): Promise<void>;
}

/**
 * Works every registered queue in this process and sweeps every few seconds. Any number of
 * processes may do this against one database: pg-boss hands each job to one worker, sweeps skip
 * rows another process holds, and the payment row locks settle the rest.
 */
export async function startWorker(queue: JobQueue, deps: JobDeps): Promise<Worker> {
  const stopping = new AbortController();
  for (const job of JOBS) {
    await queue.boss.work(job.name, job.work, (jobs) => handleBatch(job, jobs, deps, stopping.signal));
  }

  // Not a pg-boss job: a singleton job's lease outlives a killed worker by minutes, and every
  // sweep would wait for it. Each process sweeps on its own timer instead (see sweeper.ts).
  const sweeper = startSweeper(deps);

  let stopped: Promise<void> | undefined;
  return {
    stop: () => {
      stopped ??= (async () => {
        stopping.abort();
        await sweeper.stop();
        await Promise.all(JOBS.map((job) => queue.boss.offWork(job.name, { wait: true })));
      })();
      return stopped;
    },
  };
}

/**
 * Validates each job's payload and hands the valid ones to the handler as one batch. pg-boss
 * settles the batch as a whole: resolving completes every job (`id = any(ids)` on its primary
 * key), throwing fails them all and they are retried. A payload that does not parse never will:
 * it is logged and completed with the batch rather than retried. Nothing is lost by that: the
 * payment row's `next_due_at` is the truth, and the sweep catches up whatever a job did not.
 * (pg-boss's per-job results would settle them separately, but its statement for that joins the
 * batch to the queue's active jobs without an index, which for 4 x 2,500 active jobs took ~7 s
 * per batch and stalled every queue: see docs/decisions/005-hot-path-performance.md.)
 */
async function handleBatch(
  job: JobDefinition,
  jobs: Job<unknown>[],
  deps: JobDeps,
  stopping: AbortSignal,
): Promise<void> {
  const valid: unknown[] = [];
  for (const item of jobs) {
    const parsed = job.payload.safeParse(item.data);
    if (parsed.success) valid.push(parsed.data);
    else
      deps.logger.error(
        { job: job.name, id: item.id, issues: parsed.error.issues },
        'job payload is invalid; dropped (the sweep catches its payment up)',
      );
  }
  if (valid.length === 0) return;
  // The batch's span continues the trace of the request that sent its (first) job.
  const { parent, links } = jobBatchTrace(jobs.map((item) => item.data));
  try {
    await inSpan(
      `job ${job.name}`,
      { 'pis.job': job.name, 'pis.job.batch_size': valid.length },
      () => job.handler(valid, deps, stopping),
      { kind: SpanKind.CONSUMER, parent, links },
    );
  } catch (error) {
    deps.logger.warn(
      { err: error, job: job.name, jobs: valid.length },
      'job batch failed; pg-boss retries it',
    );
    throw error;
  }
}
