import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { silentLogger } from '../src/logger.ts';

export interface ThrowawayCluster {
  /** The temp folder (the cluster's data lives in it; scripts may keep their own files there). */
  dir: string;
  cluster: EmbeddedCluster;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the cluster and deletes the folder. */
  stop(): Promise<void>;
}

/** An embedded Postgres in a fresh temp folder, for `npm run bench` and `npm run chaos`. */
export async function startThrowawayCluster(purpose: string): Promise<ThrowawayCluster> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `pis-${purpose}-`));
  // Postgres runs as its own OS user when we are root: it must be able to enter the folder.
  await chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres({
    dataDir: path.join(dir, 'postgres'),
    port: 0,
    password: purpose,
    logger: silentLogger(),
    persistent: false,
  });
  return {
    dir,
    cluster,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: cluster.url('postgres') });
      await client.connect();
      try {
        await client.query(`create database ${client.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return cluster.url(name);
    },
    async stop() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
