import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { importEmbeddedPostgres } from '../src/db/database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A database URL on a server where test files may CREATE DATABASE. */
    bankTestAdminUrl: string;
  }
}

/**
 * DATABASE_URL when given (CI with a service), else a throwaway embedded cluster on a free port
 * in a temp folder. Test files create their own databases (test/support/bank.ts).
 */
export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let stop = async () => {};
  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-bank-pg-'));
  if (!adminUrl) {
    // The cluster runs as the `postgres` OS user when we are root: it must reach the folder.
    await chmod(tempDir, 0o755);
    // Without its exit hooks: they made vitest exit 0 after failed tests.
    const EmbeddedPostgres = await importEmbeddedPostgres();
    const port = await freePort();
    const cluster = new EmbeddedPostgres({
      databaseDir: path.join(tempDir, 'postgres'),
      port,
      user: 'postgres',
      password: 'test',
      persistent: false,
      createPostgresUser: true,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      onLog: () => {},
      onError: () => {},
    });
    await cluster.initialise();
    await cluster.start();
    adminUrl = `postgres://postgres:test@127.0.0.1:${port}/postgres`;
    stop = () => cluster.stop();
  }
  project.provide('bankTestAdminUrl', adminUrl);
  return async () => {
    if (process.env.DATABASE_URL) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      const { rows } = await client.query<{ datname: string }>(
        "select datname from pg_database where datname like 'sandbox_bank_test_%'",
      );
      for (const { datname } of rows) await client.query(`drop database if exists ${datname} with (force)`);
      await client.end();
    }
    await stop();
    await rm(tempDir, { recursive: true, force: true });
  };
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
