import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { type BuildAppOptions, buildApp } from '../../src/app.ts';
import { type ApiKeyCache, startApiKeyCache } from '../../src/auth/api-key-cache.ts';
import type { Config } from '../../src/config.ts';
import { type Notifications, startNotifications } from '../../src/db/notifications.ts';
import { type Orm, openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { type PaymentWaiters, startPaymentWaiters } from '../../src/payments/payment-waiters.ts';
import { type Factories, factories } from './factories.ts';
import { checkAnswersAgainstDocument } from './response-contract.ts';
import { TestClock } from './test-clock.ts';
import { testConfig } from './test-config.ts';
import { createTestDatabase } from './test-database.ts';

export interface TestApp {
  app: FastifyInstance;
  orm: Orm;
  clock: TestClock;
  config: Config;
  factories: Factories;
  /** The file's database URL, for code under test that opens its own connections (CLI, worker). */
  databaseUrl: string;
  /** With `waiting: true`: the app's listening connection and waiters (else absent: reads never wait). */
  notifications?: Notifications;
  waiters?: PaymentWaiters;
  /** With `keyCache: true`: the app's API key cache, fed by its listening connection (as in `npm start`). */
  apiKeyCache?: ApiKeyCache;
}

/**
 * The app on the file's own database, closed after the file. Call at the top of a test file:
 *   const { app, factories } = await createTestApp();
 */
export async function createTestApp(
  options: { config?: Partial<Config>; waiting?: boolean; keyCache?: boolean } & Partial<
    Omit<BuildAppOptions, 'config' | 'orm' | 'clock'>
  > = {},
): Promise<TestApp> {
  const { config: configOverrides, waiting, keyCache, ...appOptions } = options;
  const database = await createTestDatabase();
  const orm = await openOrm(database.url, { poolMax: 4 });
  const clock = new TestClock();
  const config = testConfig({ databaseUrl: database.url, ...configOverrides });
  const notifications =
    waiting || keyCache
      ? startNotifications({ databaseUrl: database.url, logger: silentLogger() })
      : undefined;
  const waiters = notifications && waiting ? await startPaymentWaiters(notifications) : undefined;
  const apiKeyCache = notifications && keyCache ? await startApiKeyCache(notifications) : undefined;
  const app = await buildApp({
    config,
    orm,
    clock,
    ...(waiters ? { waiters } : {}),
    ...(apiKeyCache ? { apiKeyCache } : {}),
    ...appOptions,
  });
  await app.ready();
  await checkAnswersAgainstDocument(app);
  afterAll(async () => {
    await app.close();
    await notifications?.close();
    await orm.close();
    await database.drop();
  });
  return {
    app,
    orm,
    clock,
    config,
    factories: factories(orm, clock),
    databaseUrl: database.url,
    ...(notifications ? { notifications } : {}),
    ...(waiters ? { waiters } : {}),
    ...(apiKeyCache ? { apiKeyCache } : {}),
  };
}
