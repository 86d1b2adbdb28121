import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { type Orm, type OrmOptions, openOrm } from '../../src/db/orm.ts';
import { factories } from '../helpers/factories.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

/**
 * Several app instances on one database, each with its own pool (as separate processes would
 * have), closed after the file. For what must hold across instances or depends on pool settings.
 */
export async function createInstances(options: {
  count: number;
  config?: Partial<Config>;
  orm?: OrmOptions;
}): Promise<{
  apps: FastifyInstance[];
  orms: Orm[];
  factories: ReturnType<typeof factories>;
  databaseUrl: string;
}> {
  const database = await createTestDatabase();
  const clock = new TestClock();
  const config = testConfig({ databaseUrl: database.url, ...options.config });
  const apps: FastifyInstance[] = [];
  const orms: Orm[] = [];
  for (let i = 0; i < options.count; i++) {
    const orm = await openOrm(database.url, { poolMax: 4, ...options.orm });
    orms.push(orm);
    const app = await buildApp({ config, orm, clock });
    await app.ready();
    apps.push(app);
  }
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const orm of orms) await orm.close();
    await database.drop();
  });
  return { apps, orms, factories: factories(orms[0] as Orm, clock), databaseUrl: database.url };
}
