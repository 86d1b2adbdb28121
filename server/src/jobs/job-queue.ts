import { type JobInsert, PgBoss, type SendOptions } from 'pg-boss';
import type { z } from 'zod';
import type { Logger } from '../logger.ts';
import { withTraceContext } from '../observability/tracing.ts';
import type { JobDefinition } from './job-definition.ts';
import { JOBS } from './registry.ts';

/** pg-boss keeps its tables here, beside (not inside) the schema MikroORM manages. */
export const JOB_SCHEMA = 'pgboss';

export interface JobQueueOptions {
  databaseUrl: string;
  logger: Logger;
  /**
   * Whether this process works jobs. pg-boss's maintenance (expiring jobs lost with a crashed
   * worker, deleting old ones) runs only in working processes: an API-only process just sends.
   */
  worker: boolean;
  /** pg-boss's own connections (fetching, settling, sending); handlers use the ORM's pool. */
  poolMax?: number;
  /**
   * Install or upgrade pg-boss's schema on start (default). `false` where the service's role
   * owns no schema: `npm run -w @pis/server migrate` installs it as the owner beforehand.
   */
  migrate?: boolean;
}

/** Started pg-boss plus typed sending. One per process; `stop()` drains before closing. */
export interface JobQueue {
  boss: PgBoss;
  send<Schema extends z.ZodType>(
    job: JobDefinition<Schema>,
    payload: z.input<Schema>,
    options?: SendOptions,
  ): Promise<string | null>;
  /** Many jobs of one queue in one statement (pg-boss `insert`); duplicates are dropped per queue policy. */
  insert<Schema extends z.ZodType>(
    job: JobDefinition<Schema>,
    jobs: readonly { payload: z.input<Schema>; options?: Omit<JobInsert, 'data'> }[],
  ): Promise<void>;
  /** Waits for running handlers (up to `timeoutMs`), then closes pg-boss's pool. */
  stop(options?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
}

export async function startJobQueue(options: JobQueueOptions): Promise<JobQueue> {
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: JOB_SCHEMA,
    application_name: options.worker ? 'pis-worker' : 'pis-api',
    max: options.poolMax ?? 4,
    supervise: options.worker,
    schedule: false,
    migrate: options.migrate ?? true,
    createSchema: options.migrate ?? true,
  });
  // An 'error' event nobody listens for would crash the process; pg-boss recovers by itself.
  boss.on('error', (error) => options.logger.error({ err: error }, 'pg-boss error'));
  boss.on('warning', (warning) => options.logger.warn({ warning }, 'pg-boss warning'));
  await boss.start();
  try {
    for (const job of JOBS) await boss.createQueue(job.name, job.queue);
  } catch (error) {
    await boss.stop({ graceful: false });
    throw error;
  }

  return {
    boss,
    send: (job, payload, sendOptions) =>
      boss.send(job.name, withTraceContext(job.payload.parse(payload) as object), sendOptions),
    insert: async (job, jobs) => {
      await boss.insert(
        job.name,
        jobs.map(({ payload, options }) => ({
          ...options,
          data: withTraceContext(job.payload.parse(payload) as object),
        })),
        { returnId: false },
      );
    },
    stop: async ({ graceful = true, timeoutMs = 10_000 } = {}) => {
      await boss.stop({ graceful, timeout: timeoutMs });
    },
  };
}
