import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import type { EntityManager } from './orm.ts';

/** How often the offset to the database's clock is measured again (clocks drift slowly). */
const RESYNC_INTERVAL_MS = 60_000;

export interface DatabaseClock extends Clock {
  /** Milliseconds to add to this machine's clock to get the database's (last measurement). */
  readonly offsetMs: number;
  stop(): void;
}

/**
 * The database's clock, read without a round trip: this machine's clock plus the offset to
 * Postgres's `clock_timestamp()`, measured on start and every minute (NTP-style: the midpoint
 * of the query's round trip). Every process of a deployment therefore decides "is this step due"
 * and stamps its history on one clock, the database's, whichever machine it runs on; the error is
 * at most half a round trip. Tests keep their injectable clock.
 */
export async function startDatabaseClock(
  em: EntityManager,
  logger: Logger,
  /** This machine's clock (tests pass one that is off). */
  machineNow: () => number = Date.now,
): Promise<DatabaseClock> {
  let offsetMs = await measureOffset(em, machineNow);
  const timer = setInterval(() => {
    measureOffset(em, machineNow).then(
      (measured) => {
        offsetMs = measured;
      },
      // Keep the last offset: a database we cannot reach has nothing due to decide anyway.
      (error: unknown) => logger.warn({ err: error }, 'could not measure the database clock'),
    );
  }, RESYNC_INTERVAL_MS);
  timer.unref();
  if (Math.abs(offsetMs) > 1_000) {
    logger.warn({ offsetMs }, "this machine's clock differs from the database's; using the database's");
  }
  return {
    now: () => new Date(machineNow() + offsetMs),
    get offsetMs() {
      return offsetMs;
    },
    stop: () => clearInterval(timer),
  };
}

async function measureOffset(em: EntityManager, machineNow: () => number): Promise<number> {
  const connection = em.getConnection();
  // The first query of a pool opens a connection: measure on the second, warm one.
  let best: number | undefined;
  let bestTrip = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const sent = machineNow();
    const [row] = await connection.execute<{ ms: number | string }[]>(
      'select extract(epoch from clock_timestamp()) * 1000 as ms',
    );
    const received = machineNow();
    if (received - sent < bestTrip) {
      bestTrip = received - sent;
      best = Number(row?.ms) - (sent + received) / 2;
    }
  }
  if (best === undefined || Number.isNaN(best)) throw new Error('database clock unreadable');
  return Math.round(best);
}
