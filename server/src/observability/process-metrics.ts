import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { attachMetricSources, BACKLOG_CAP } from './metrics.ts';
import { type MetricsServer, startMetricsServer } from './metrics-server.ts';

/**
 * What every process (API and worker) reports at scrape time, and its metrics listener when
 * METRICS_PORT is set (stopped last on shutdown: a scrape during the drain still answers).
 * The sweep's backlog is reported by worker processes: they are the ones that clear it.
 */
export async function startProcessMetrics(
  options: { config: Config; logger: Logger; orm: Orm; runWorker: boolean },
  /** The process's shutdown (lifecycle/graceful-shutdown.ts), which closes the listener. */
  shutdown: { add(name: string, run: () => Promise<void>): void },
): Promise<MetricsServer | undefined> {
  const pool = (await options.orm.em.getConnection().getNativeClient()) as pg.Pool;
  attachMetricSources({
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ...(options.runWorker ? { sweepBacklog: () => sweepBacklog(options.orm) } : {}),
  });
  if (!options.config.metrics) return undefined;
  const server = await startMetricsServer({ ...options.config.metrics, logger: options.logger });
  shutdown.add('metrics', () => server.close());
  return server;
}

/** One indexed range read on next_due_at, capped, on the database's clock (as the sweep reads it). */
async function sweepBacklog(orm: Orm): Promise<{ overdue: number; oldestSeconds: number }> {
  const [row] = await orm.em.getConnection().execute<{ overdue: number; oldest: number | null }[]>(
    `select count(*)::int as overdue, extract(epoch from now() - min(next_due_at))::float8 as oldest
       from (select next_due_at from payment where next_due_at <= now() order by next_due_at limit ${BACKLOG_CAP}) due`,
  );
  return { overdue: row?.overdue ?? 0, oldestSeconds: Math.max(0, row?.oldest ?? 0) };
}
