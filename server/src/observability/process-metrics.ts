import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { overdueBacklog } from '../payments/payment-store.ts';
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
    ...(options.runWorker ? { sweepBacklog: () => overdueBacklog(options.orm.em, BACKLOG_CAP) } : {}),
  });
  if (!options.config.metrics) return undefined;
  const server = await startMetricsServer({ ...options.config.metrics, logger: options.logger });
  shutdown.add('metrics', () => server.close());
  return server;
}
