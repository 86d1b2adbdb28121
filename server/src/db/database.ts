import path from 'node:path';
import pg from 'pg';
import { type Config, persistedSecret } from '../config.ts';
import type { Logger } from '../logger.ts';
import { type EmbeddedCluster, startEmbeddedPostgres } from './embedded-postgres.ts';
import { migrate, type Orm, type OrmOptions, openOrm } from './orm.ts';

export const EMBEDDED_DATABASE_NAME = 'pis';

export interface Database {
  orm: Orm;
  url: string;
  /** Set when we use the embedded cluster (owned or reused). */
  cluster: EmbeddedCluster | undefined;
  /** Closes the pool, then stops the embedded cluster if this process started it. */
  close(): Promise<void>;
}

/** The embedded cluster's password, generated on first start and kept beside its data folder. */
export function embeddedPassword(config: Pick<Config, 'embeddedPgDir'>): string {
  return persistedSecret(
    path.dirname(config.embeddedPgDir),
    `${path.basename(config.embeddedPgDir)}-password`,
  );
}

/** Connects (starting or reusing the embedded cluster when DATABASE_URL is absent) and migrates. */
export async function openDatabase(
  config: Config,
  logger: Logger,
  options: OrmOptions & { migrate?: boolean } = {},
): Promise<Database> {
  let cluster: EmbeddedCluster | undefined;
  let url = config.databaseUrl;
  if (!url) {
    cluster = await startEmbeddedPostgres({
      dataDir: config.embeddedPgDir,
      port: config.embeddedPgPort,
      password: embeddedPassword(config),
      logger,
    });
    url = cluster.url(EMBEDDED_DATABASE_NAME);
    await ensureDatabaseExists(cluster.url('postgres'), EMBEDDED_DATABASE_NAME);
  }
  const stopCluster = async () => {
    if (cluster?.owned) await cluster.stop();
  };
  let orm: Orm | undefined;
  try {
    if (options.migrate ?? true) {
      // On a pool of its own without the statement timeout: a migration may rightly run long.
      const migrator = await openOrm(url, { poolMax: 1 });
      try {
        const applied = await migrate(migrator, url);
        if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
      } finally {
        await migrator.close();
      }
    }
    orm = await openOrm(url, {
      statementTimeoutMs: config.timeouts.statementMs,
      acquireTimeoutMs: config.timeouts.poolAcquireMs,
      ...options,
    });
  } catch (error) {
    await orm?.close();
    await stopCluster();
    throw error;
  }
  const opened = orm;
  return {
    orm: opened,
    url,
    cluster,
    close: async () => {
      await opened.close();
      await stopCluster();
    },
  };
}

async function ensureDatabaseExists(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount === 0) {
      await client
        .query(`create database ${client.escapeIdentifier(name)}`)
        .catch((error: { code?: string }) => {
          // 42P04: another process created it at the same moment.
          if (error.code !== '42P04') throw error;
        });
    }
  } finally {
    await client.end();
  }
}
