import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { type Config, loadConfig } from '../src/config.ts';
import { type Database, openDatabase } from '../src/db/database.ts';
import { type Background, startBackground } from '../src/lifecycle/background.ts';
import { createLogger } from '../src/logger.ts';
import { createApiKey, createOrganization } from '../src/organizations/organization-admin.ts';

/** The service composed as `npm start` composes it (API + worker in one process), on a given database. */
export interface Service {
  app: FastifyInstance;
  database: Database;
  background: Background;
  config: Config;
  apiKey: string;
  organizationId: string;
  close(): Promise<void>;
}

export async function startService(databaseUrl: string, dataDir: string): Promise<Service> {
  const config = loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', RUN_WORKER: 'true' }, dataDir);
  const logger = createLogger(config.logLevel, 'stderr');
  const database = await openDatabase(config, logger);
  const background = await startBackground({
    config,
    orm: database.orm,
    databaseUrl: database.url,
    clock: systemClock,
    logger,
    runWorker: config.runWorker,
  });
  const app = await buildApp({
    config,
    orm: database.orm,
    clock: systemClock,
    logger,
    scheduler: background.scheduler,
  });
  const { organizationId } = await createOrganization(database.orm.em.fork(), 'Bench Merchant', systemClock);
  const { apiKey } = await createApiKey(
    database.orm.em.fork(),
    { organizationId, permissions: { read: true, write: true } },
    systemClock,
  );
  return {
    app,
    database,
    background,
    config,
    apiKey,
    organizationId,
    close: async () => {
      await app.close();
      await background.stop();
      await database.close();
    },
  };
}
