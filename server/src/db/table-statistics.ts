import type { Logger } from '../logger.ts';
import type { Orm } from './orm.ts';

/**
 * Reads that never degrade (issue 32 item 3). The hot statements are named prepared statements
 * (db/prepared-query.ts): after five runs Postgres keeps a generic plan, made from the table
 * statistics of that moment. On a fresh database, a restored one, or a table growing fast, those
 * statistics say "a few rows", the cached plan scans the whole table, and it stays cached until
 * an ANALYZE of the table invalidates it. Autovacuum analyzes only after 10% of a table changed
 * and a one-minute nap; a launch-day burst of creates ran GETs at a fifth of their speed until
 * it did.
 *
 * So a worker looks every few seconds at how much each hot table changed since its last analyze
 * and analyzes it itself once that is as many rows as its statistics know (the table doubled), or
 * a few hundred on a table they call nearly empty: a cached plan was made for at least half the
 * rows the table holds, every connection's cached plans are re-made from fresh statistics within
 * seconds of a doubling, and the analyzes of a growing table stay few (one per doubling: an
 * analyze reads a 30,000-row sample, ~100 ms of a core, whatever the table's size). Smaller
 * drift is autovacuum's (at 2% on these tables, Migration20261128094000_hot_table_analyze): it
 * refines the statistics, it does not change a hot statement's index plan. The statements keep
 * their planning cost (plan_cache_mode=force_custom_plan would re-plan every call, the CPU the
 * prepared statements saved). `skip_locked`: an analyze already running (autovacuum's, another
 * worker's) is enough.
 *
 * Only tables a named prepared statement reads: the request log is written by one (its batch
 * insert reads no table) and read by unnamed statements, planned at every call.
 */
export const HOT_TABLES = [
  'payment',
  'payment_history',
  'payment_answer',
  'api_key',
  'idempotency_key',
  'provider_claim',
  'rate_limit_window',
  'dashboard_session',
] as const;
const GROWTH_SHARE = 1;
const SMALL_TABLE_ROWS = 500;
const EVERY_MS = 5_000;

/** Analyzes each hot table that grew past its statistics; resolves to the tables analyzed. */
export async function analyzeGrownTables(orm: Orm): Promise<string[]> {
  // On the pool itself: the list travels as one array parameter (the ORM would inline it).
  const pool = await orm.em.getConnection().getNativeClient();
  const { rows } = await pool.query<{ relname: string }>(
    `select c.relname from pg_class c join pg_stat_user_tables s on s.relid = c.oid
      where c.relnamespace = current_schema()::regnamespace and c.relname = any($1::text[])
        and s.n_mod_since_analyze > greatest($2::float8, $3::float8 * greatest(c.reltuples, 0))`,
    [HOT_TABLES, SMALL_TABLE_ROWS, GROWTH_SHARE],
  );
  for (const { relname } of rows) {
    // A name from the fixed list above, never from input.
    await pool.query(`analyze (skip_locked) "${relname}"`);
  }
  return rows.map((table) => table.relname);
}

/** Workers keep the hot tables' statistics up with their growth (see above); stopped on shutdown. */
export function startTableStatistics(orm: Orm, logger: Logger): { stop(): void } {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const analyzed = await analyzeGrownTables(orm);
      if (analyzed.length > 0) logger.debug({ analyzed }, 'hot tables analyzed after growth');
    } catch (error) {
      logger.warn({ err: error }, 'hot table statistics not refreshed; trying again shortly');
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
