import type { Job, JobResult } from 'pg-boss';
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
    await queue.boss.work(job.name, { ...job.work, perJobResults: true }, (jobs) =>
      handleBatch(job, jobs, deps, stopping.signal),
    );
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
 * Validates each job's payload (one that does not parse never will: it is dead-lettered, not
 * retried), then hands the valid ones to the handler as one batch, settled together.
 */
async function handleBatch(
  job: JobDefinition,
  jobs: Job<unknown>[],
  deps: JobDeps,
  stopping: AbortSignal,
): Promise<JobResult[]> {
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
      stopping,
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
