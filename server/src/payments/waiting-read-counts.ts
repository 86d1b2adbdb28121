import { randomUUID } from 'node:crypto';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { PaymentWaiters } from './payment-waiters.ts';

/** How often a process publishes its counts and reads the others' (the staleness of the allowance). */
export const PUBLISH_INTERVAL_MS = 1_000;
/**
 * A process whose rows are older than this is gone (kill -9, a lost network): its rows are
 * ignored and purged. Five intervals, so a busy process or a slow database does not make a live
 * process's waits vanish from the others' view now and then.
 */
export const STALE_AFTER_MS = 5_000;

export interface WaitingReadCounts {
  /** This process's id in `waiting_read_count`. */
  readonly processId: string;
  /** One publish-and-read now (the timer does it every interval; tests and shutdown use it). */
  sync(): Promise<void>;
  /** Shutdown: no more ticks, and this process's rows deleted (its waits have ended). */
  stop(): Promise<void>;
}

/**
 * An organization's waiting reads counted across every process on the database
 * (docs/decisions/044-organization-budgets.md), off the request path: once per interval this
 * process writes its own counts per organization to `waiting_read_count` (with a fresh
 * heartbeat, removing organizations that no longer wait here), purges the rows of processes
 * whose heartbeat is stale, and reads the sums of the other, live processes into
 * `waiters.heardElsewhere`. The allowance check (read-payment.ts `withinWaitAllowance`) stays in
 * memory: this process's exact count plus the others' as of at most about an interval ago.
 *
 * One statement per tick, so a tick is one round trip whatever the number of organizations.
 */
export function startWaitingReadCounts(options: {
  orm: Orm;
  waiters: PaymentWaiters;
  logger: Logger;
  intervalMs?: number;
}): WaitingReadCounts {
  const { orm, waiters, logger } = options;
  const processId = randomUUID();
  let stopped = false;

  const tick = async () => {
    const own = waiters.ownCounts();
    const rows = await orm.em.getConnection().execute<{ organization_id: string; waiting: number }[]>(
      `with mine as (
         select key as organization_id, value::int as waiting from jsonb_each_text(?::jsonb)
       ), published as (
         insert into waiting_read_count as w (process_id, organization_id, waiting, heartbeat_at)
         select ?::uuid, organization_id, waiting, clock_timestamp() from mine
         on conflict (process_id, organization_id)
         do update set waiting = excluded.waiting, heartbeat_at = excluded.heartbeat_at
       ), ended as (
         delete from waiting_read_count
         where (process_id = ?
             and not exists (select from mine where mine.organization_id = waiting_read_count.organization_id))
           or (process_id <> ? and heartbeat_at < clock_timestamp() - ? * interval '1 millisecond')
       )
       select organization_id, sum(waiting)::int as waiting from waiting_read_count
       where process_id <> ? and heartbeat_at >= clock_timestamp() - ? * interval '1 millisecond'
       group by organization_id`,
      [
        // One parameter whatever the number of organizations (an object of counts).
        JSON.stringify(Object.fromEntries(own)),
        processId,
        processId,
        processId,
        STALE_AFTER_MS,
        processId,
        STALE_AFTER_MS,
      ],
    );
    waiters.heardElsewhere(new Map(rows.map((row) => [row.organization_id, Number(row.waiting)])));
  };

  // Ticks run one after another; a `sync` call starts a fresh one after any in flight (so it
  // sees everything committed before it was called), while the timer skips a beat when one is
  // queued: a slow database makes ticks rarer, never piles them up.
  let queue: Promise<void> = Promise.resolve();
  let pending = 0;
  const sync = (): Promise<void> => {
    pending += 1;
    const next = queue.then(tick).finally(() => {
      pending -= 1;
    });
    queue = next.catch(() => {});
    return next;
  };

  const timer = setInterval(() => {
    if (stopped || pending > 0) return;
    // Keep the last snapshot: a database we cannot reach makes it older, and after
    // STALE_AFTER_MS the other processes stop counting this one's waits (they err towards allowing).
    sync().catch((error: unknown) => logger.warn({ err: error }, 'could not share the waiting-read counts'));
  }, options.intervalMs ?? PUBLISH_INTERVAL_MS);
  timer.unref();

  return {
    processId,
    sync,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await queue;
      await orm.em
        .getConnection()
        .execute('delete from waiting_read_count where process_id = ?', [processId])
        .catch((error: unknown) => logger.warn({ err: error }, 'could not delete the waiting-read counts'));
    },
  };
}
