import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { startApiKeyCache } from '../auth/api-key-cache.ts';
import type { Clock } from '../clock.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { startDatabaseClock } from '../db/database-clock.ts';
import { type Notifications, startNotifications } from '../db/notifications.ts';
import { startTableStatistics } from '../db/table-statistics.ts';
import { createLogger, type Logger } from '../logger.ts';
import { attachMetricSources } from '../observability/metrics.ts';
import { startProcessMetrics } from '../observability/process-metrics.ts';
import { RequestLogWriter, startRequestLogRetention } from '../observability/request-log.ts';
import { startTracing } from '../observability/tracing.ts';
import { stopSettlingClaims } from '../payments/idempotency.ts';
import { type PaymentWaiters, startPaymentWaiters } from '../payments/payment-waiters.ts';
import { startWaitingReadCounts } from '../payments/waiting-read-counts.ts';
import { defaultProviderRegistry } from '../providers/default-providers.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { type Background, startBackground } from './background.ts';
import { GracefulShutdown, STEP_BUDGET_MS } from './graceful-shutdown.ts';
import { HttpDrain } from './http-drain.ts';

/** `clock` absent: the database's clock (what a deployment uses; see db/database-clock.ts). */
export type PartsOptions = { config: Config; logger: Logger; clock?: Clock; runWorker: boolean };

/**
 * The database and the job queue (working it when `runWorker`), each registered with
 * `shutdown` as it starts, so a failure half-way (or Ctrl-C during start-up) stops exactly what
 * did start, in reverse order: worker and queue, then the pool and the embedded cluster.
 */
export async function startBackgroundParts(
  options: PartsOptions,
  shutdown: GracefulShutdown,
): Promise<{
  database: Database;
  background: Background;
  clock: Clock;
  notifications: Notifications;
  providers: ProviderRegistry;
}> {
  const { config, logger } = options;
  const database = await openDatabase(config, logger);
  // The process's one listening connection (connected on first use), closed with the pool.
  const notifications = startNotifications({ databaseUrl: database.url, logger });
  shutdown.add(
    'database',
    async () => {
      await notifications.close();
      await database.close();
    },
    STEP_BUDGET_MS.database,
  );
  shutdown.add('idempotency claims being settled', stopSettlingClaims);
  await startProcessMetrics({ config, logger, orm: database.orm, runWorker: options.runWorker }, shutdown);
  if (options.runWorker) {
    const retention = startRequestLogRetention(database.orm, logger);
    shutdown.add('request log retention', async () => retention.stop());
    const statistics = startTableStatistics(database.orm, logger);
    shutdown.add('table statistics', async () => statistics.stop());
  }
  let clock = options.clock;
  if (!clock) {
    const databaseClock = await startDatabaseClock(database.orm.em, logger);
    shutdown.add('database clock', async () => databaseClock.stop());
    clock = databaseClock;
  }
  // One per process: the worker's jobs and the app's requests share its adapters (and their caches).
  const providers = await defaultProviderRegistry(config, database.orm, logger);
  const background = await startBackground({
    config,
    orm: database.orm,
    databaseUrl: database.url,
    clock,
    logger,
    runWorker: options.runWorker,
    providers,
  });
  shutdown.add('background', () => background.stop(), STEP_BUDGET_MS.background);
  return { database, background, clock, notifications, providers };
}

/** The whole service as `npm start` runs it: the background parts plus the HTTP app (stopped first). */
export async function startServiceParts(
  options: PartsOptions,
  shutdown: GracefulShutdown,
): Promise<{
  database: Database;
  background: Background;
  clock: Clock;
  notifications: Notifications;
  providers: ProviderRegistry;
  waiters: PaymentWaiters;
  app: FastifyInstance;
}> {
  const parts = await startBackgroundParts(options, shutdown);
  const { config, logger } = options;
  const waiters = await startPaymentWaiters(parts.notifications);
  attachMetricSources({ waitingReads: () => waiters.waiting });
  if (config.rateLimits.enabled) {
    // Each organization's waits counted across instances (decision 044); stopped after HTTP
    // (steps run last-added first), so its rows are deleted once this process's waits ended.
    const counts = startWaitingReadCounts({ orm: parts.database.orm, waiters, logger });
    shutdown.add('waiting-read counts', () => counts.stop());
  }
  const apiKeyCache = await startApiKeyCache(parts.notifications);
  const drain = new HttpDrain();
  const requestLog = config.requestLog
    ? new RequestLogWriter(parts.database.orm, logger, { rowsPerDay: config.requestLogRowsPerDay })
    : undefined;
  // After HTTP has stopped (steps run last-added first): its last entries, then the pool.
  if (requestLog) shutdown.add('request log', () => requestLog.stop());
  const app = await buildApp({
    config,
    orm: parts.database.orm,
    clock: parts.clock,
    logger,
    providers: parts.providers,
    scheduler: parts.background.scheduler,
    mail: parts.background.mail,
    waiters,
    apiKeyCache,
    drain,
    ...(requestLog ? { requestLog } : {}),
  });
  // SIGTERM: not ready but serving for SHUTDOWN_DRAIN_MS; then close (waiting reads answer at
  // once, in-flight requests finish, idle keep-alive connections close).
  shutdown.onDrain(() => drain.begin());
  shutdown.add('http', () => app.close(), STEP_BUDGET_MS.http);
  return { ...parts, waiters, app };
}

/**
 * The frame of an entry point: configuration (exit 2 on a bad environment, naming the
 * variables, never their values), a logger, graceful shutdown on SIGINT/SIGTERM, and on a
 * failed start a readable message, everything started stopped, exit 1.
 */
export async function runProcess(
  what: string,
  start: (context: { config: Config; logger: Logger; shutdown: GracefulShutdown }) => Promise<void>,
): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  const shutdown = new GracefulShutdown(logger, { drainMs: config.shutdownDrainMs });
  // Installed before anything starts, so Ctrl-C during start-up still stops the embedded cluster.
  shutdown.installSignalHandlers();
  try {
    // Before anything else starts, so the first request is traced; unset endpoint: nothing loaded.
    if (config.tracing) {
      const tracing = await startTracing(config.tracing);
      shutdown.add('tracing', () => tracing.shutdown());
    }
    await start({ config, logger, shutdown });
  } catch (error) {
    logger.fatal({ err: error }, `${what} start failed`);
    process.stderr.write(
      `\nCould not start the ${what}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    await shutdown.run();
    process.exit(1);
  }
}
