import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createApiKey } from '../src/auth/api-keys.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/database.ts';
import type { Background } from '../src/lifecycle/background.ts';
import { GracefulShutdown } from '../src/lifecycle/graceful-shutdown.ts';
import { startServiceParts } from '../src/lifecycle/process.ts';
import { createLogger } from '../src/logger.ts';
import { createOrganization } from '../src/organizations/organization-admin.ts';
import type { PaymentWaiters } from '../src/payments/payment-waiters.ts';

/** The service composed as `npm start` composes it (API + worker in one process), on a given database. */
export interface Service {
  app: FastifyInstance;
  /** This process's waiting reads (GET with Prefer: wait). */
  waiters: PaymentWaiters;
  database: Database;
  background: Background;
  config: Config;
  apiKey: string;
  organizationId: string;
  close(): Promise<void>;
}

/**
 * Rate limits are off, as for any load test (RATE_LIMITS=off). `countRateLimits` turns them on
 * with budgets no bench reaches, to measure what counting costs per request.
 */
export async function startService(
  databaseUrl: string,
  dataDir: string,
  options: { countRateLimits?: boolean; runWorker?: boolean; env?: Record<string, string> } = {},
): Promise<Service> {
  const unreachable = '1000000000';
  const config = loadConfig(
    {
      DATABASE_URL: databaseUrl,
      // An external database means a deployment, which must bring its own link secret.
      LINK_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      RUN_WORKER: options.runWorker === false ? 'false' : 'true',
      ...(options.countRateLimits
        ? {
            RATE_LIMITS: 'on',
            RATE_LIMIT_API_READS: unreachable,
            RATE_LIMIT_API_WRITES: unreachable,
            RATE_LIMIT_WAITS_PER_ORGANIZATION: unreachable,
            WAITS_PER_PROCESS: unreachable,
          }
        : { RATE_LIMITS: 'off' }),
      ...options.env,
    },
    dataDir,
  );
  const logger = createLogger(config.logLevel, 'stderr');
  const shutdown = new GracefulShutdown(logger);
  const { database, background, app, clock, waiters } = await startServiceParts(
    { config, logger, runWorker: config.runWorker },
    shutdown,
  );
  const { organizationId } = await createOrganization(database.orm.em.fork(), 'Bench Merchant', clock);
  const { apiKey } = await createApiKey(
    database.orm.em.fork(),
    { organizationId, permissions: { read: true, write: true } },
    clock,
  );
  return {
    app,
    waiters,
    database,
    background,
    config,
    apiKey,
    organizationId,
    close: () => shutdown.run(),
  };
}
