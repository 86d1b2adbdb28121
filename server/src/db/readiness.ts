import type { Orm } from './orm.ts';

/** Why the database cannot serve requests yet; undefined when it can. */
export type NotReady = 'database unreachable' | 'migrations pending';

/** Slower than this counts as unreachable: a readiness probe must answer while a pool is stuck. */
const READINESS_TIMEOUT_MS = 2_000;

/**
 * Reachable and migrated: a connection check, then the migrator reads its table and compares
 * it with the migrations this build ships (a build newer than the schema is not ready). The
 * connection is checked first because the migrator reports an unreachable database as
 * "everything pending".
 */
export async function databaseNotReady(orm: Orm): Promise<NotReady | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), READINESS_TIMEOUT_MS);
  });
  const check = async (): Promise<NotReady | undefined> => {
    if (!(await orm.checkConnection()).ok) return 'database unreachable';
    return (await orm.migrator.getPending()).length > 0 ? 'migrations pending' : undefined;
  };
  try {
    const outcome = await Promise.race([check(), timeout]);
    return outcome === 'timeout' ? 'database unreachable' : outcome;
  } catch {
    return 'database unreachable';
  } finally {
    clearTimeout(timer);
  }
}
