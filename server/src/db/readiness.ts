import type { Orm } from './orm.ts';

/** Why the database cannot serve requests yet; undefined when it can. */
export type NotReady = 'database unreachable' | 'migrations pending';

/** Slower than this counts as unreachable: a readiness probe must answer while a pool is stuck. */
const READINESS_TIMEOUT_MS = 2_000;

/**
 * A database that was reachable less than this ago still counts as reachable (issue 30). Every
 * instance shares the database, so taking them all out of the load balancer for a switchover
 * (2-5 s) only adds the balancer's `rise` checks to the outage once the new leader is there:
 * the instances answer 503 with Retry-After meanwhile either way. A longer outage (a failover)
 * takes them out as before; an instance that never reached its database is not ready at once.
 */
export const UNREACHABLE_GRACE_MS = 5_000;
const lastReachedAt = new WeakMap<Orm, number>();

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
  let outcome: NotReady | undefined;
  try {
    const checked = await Promise.race([check(), timeout]);
    outcome = checked === 'timeout' ? 'database unreachable' : checked;
  } catch {
    outcome = 'database unreachable';
  } finally {
    clearTimeout(timer);
  }
  if (outcome !== 'database unreachable') {
    lastReachedAt.set(orm, performance.now());
    return outcome;
  }
  const reached = lastReachedAt.get(orm);
  return reached !== undefined && performance.now() - reached < UNREACHABLE_GRACE_MS ? undefined : outcome;
}
