import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type EmbeddedCluster, startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { silentLogger } from '../src/logger.ts';

/** An embedded Postgres in a fresh temporary folder, for one benchmark run; `remove` deletes it all. */
export async function startThrowawayCluster(
  name: string,
): Promise<{ cluster: EmbeddedCluster; tempDir: string; remove(): Promise<void> }> {
  const tempDir = await mkdtemp(path.join(os.tmpdir(), `pis-${name}-`));
  // The cluster may run as the `postgres` OS user, which must reach the folder.
  await chmod(tempDir, 0o755);
  const cluster = await startEmbeddedPostgres({
    dataDir: path.join(tempDir, 'postgres'),
    port: 0,
    password: 'bench',
    logger: silentLogger(),
    persistent: false,
  });
  return {
    cluster,
    tempDir,
    remove: async () => {
      await cluster.stop();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}
