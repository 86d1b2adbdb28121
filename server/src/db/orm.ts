import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Migrator } from '@mikro-orm/migrations';
import { defineConfig, MikroORM, type Options } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';

export type Orm = MikroORM;
export type { EntityManager } from '@mikro-orm/postgresql';

/** Where `migration:create` writes new files (they are then listed in migrations/index.ts). */
export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface OrmOptions {
  /** Connections per process; tests keep it small because many test databases share one cluster. */
  poolMax?: number;
  debug?: boolean;
  /**
   * Postgres `statement_timeout` on every pooled connection (0 or absent: none). A stuck query
   * fails its request instead of holding a connection (and a row lock) for minutes.
   */
  statementTimeoutMs?: number;
  /**
   * Longest wait for a pooled connection, connecting included (pg-pool's `connectionTimeoutMillis`,
   * which also bounds the wait in its queue); absent: forever.
   */
  acquireTimeoutMs?: number;
}

export function ormConfig(clientUrl: string, options: OrmOptions = {}): Options {
  return defineConfig({
    clientUrl,
    entities: ENTITIES,
    extensions: [Migrator],
    pool: { min: 0, max: options.poolMax ?? 10 },
    debug: options.debug ?? false,
    driverOptions: {
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
      ...(options.acquireTimeoutMs ? { connectionTimeoutMillis: options.acquireTimeoutMs } : {}),
    },
    // Requests get their own fork; a stray use of the global EM is a bug we want to see.
    allowGlobalContext: false,
    migrations: {
      // An explicit list, not a glob: the same code runs from src (type stripping) and in Docker.
      migrationsList: MIGRATIONS,
      path: MIGRATIONS_DIR,
      pathTs: MIGRATIONS_DIR,
      emit: 'ts',
      transactional: true,
      allOrNothing: true,
      // The snapshot is written by `migration:create` only; applying migrations must not touch src.
      snapshotOnMigrate: false,
      silent: true,
    },
  });
}

export async function openOrm(clientUrl: string, options: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(clientUrl, options));
}

const MIGRATION_LOCK_ID = 7239101;

/**
 * Applies pending committed migrations. Two processes starting together (server and CLI, or
 * several replicas) queue on an advisory lock held by a separate session, so each migration
 * runs once.
 */
export async function migrate(orm: Orm, clientUrl: string): Promise<string[]> {
  const lock = new pg.Client({ connectionString: clientUrl });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    const applied = await orm.migrator.up();
    return applied.map((migration) => migration.name);
  } finally {
    await lock.end();
  }
}

/** Rows a statement run with `em.execute(sql, params, 'run')` changed (MikroORM's QueryResult). */
export const affectedRows = (result: unknown): number =>
  (result as { affectedRows?: number }).affectedRows ?? 0;
