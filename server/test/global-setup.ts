import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../src/config.ts';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { migrate, openOrm } from '../src/db/orm.ts';
import { silentLogger } from '../src/logger.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection URL of a database we may CREATE DATABASE from (the template lives on the same server). */
    testDatabaseAdminUrl: string;
    testDatabaseTemplate: string;
  }
}

/**
 * One Postgres for the whole run: DATABASE_URL when given (CI with a service container), else
 * an embedded cluster in a temp folder on a free port (durability off: it is thrown away).
 * A template database is migrated once; each test file clones it (test/helpers/test-database.ts).
 */
export default async function setup(project: TestProject) {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'pis-test-'));
  // The cluster runs as the `postgres` OS user when we are root: it must reach the folder.
  await chmod(tempDir, 0o755);
  const { databaseUrl } = loadConfig({ ...process.env, LINK_SIGNING_SECRET: 'x'.repeat(32) }, tempDir);

  let cluster: EmbeddedCluster | undefined;
  let adminUrl = databaseUrl;
  if (!adminUrl) {
    cluster = await startEmbeddedPostgres({
      dataDir: path.join(tempDir, 'postgres'),
      port: 0,
      password: 'test',
      logger: silentLogger(),
      persistent: false,
      postgresFlags: [
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=400',
      ],
    });
    adminUrl = cluster.url('postgres');
  }

  const template = `pis_test_${process.pid}_tmpl`;
  await adminQuery(adminUrl, `drop database if exists ${template}`);
  await adminQuery(adminUrl, `create database ${template}`);
  const templateUrl = withDatabase(adminUrl, template);
  const orm = await openOrm(templateUrl, { poolMax: 1 });
  await migrate(orm, templateUrl);
  await orm.close();

  project.provide('testDatabaseAdminUrl', adminUrl);
  project.provide('testDatabaseTemplate', template);

  return async () => {
    if (cluster) {
      await cluster.stop();
    } else if (adminUrl) {
      // External server: drop what this run created.
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      const { rows } = await client.query<{ datname: string }>(
        'select datname from pg_database where datname like $1',
        [`pis_test_${process.pid}_%`],
      );
      for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
      await client.end();
    }
    await rm(tempDir, { recursive: true, force: true });
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
