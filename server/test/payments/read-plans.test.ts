import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { hashApiKey } from '../../src/auth/api-key-secret.ts';
import { openOrm } from '../../src/db/orm.ts';
import { analyzeGrownTables } from '../../src/db/table-statistics.ts';
import { factories as makeFactories } from '../helpers/factories.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { created, paymentBody } from './payment-fixtures.ts';

/**
 * Issue 32 item 3: reads never degrade. On a fresh database the hot statements are prepared
 * (named, per connection) while the tables are tiny; after a burst of writes their cached plans
 * scanned whole tables until autovacuum's analyze happened to run (GET fell from ~2,900 to ~600
 * requests/s). One connection here, so the statements the GETs prepared are the ones explained.
 */
const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 1 });
const clock = new TestClock();
const app = await buildApp({ config: testConfig({ databaseUrl: database.url }), orm, clock });
await app.ready();
afterAll(async () => {
  await app.close();
  await orm.close();
  await database.drop();
});
const factories = makeFactories(orm, clock);

const pool = await orm.em.getConnection().getNativeClient();
const sql = async <T>(text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as T[];

/** Waits until the statistics collector counts `rows` changes to payment since its last analyze. */
async function changesCounted(rows: number): Promise<void> {
  await expect
    .poll(
      async () =>
        (
          await sql<{ n: number }>(
            `select n_mod_since_analyze::int as n from pg_stat_user_tables where relid = 'payment'::regclass`,
          )
        )[0]?.n,
      { timeout: 10_000 },
    )
    .toBeGreaterThanOrEqual(rows);
}

describe('the GET keeps its index plan however the tables grew since it was prepared', () => {
  it('30,000 payments after the statements were prepared: still index scans', {
    timeout: 180_000,
  }, async () => {
    const merchant = await factories.createMerchant();
    const payment = await created(app, merchant.headers, paymentBody());
    for (let read = 0; read < 12; read++) {
      const answer = await app.inject({
        method: 'GET',
        url: `/api/payments/${payment.paymentId}`,
        headers: merchant.headers,
      });
      expect(answer.statusCode).toBe(200);
    }
    // The burst: 30,000 payments of the same organization, each with its history.
    const columns = async (table: string) =>
      (
        await sql<{ name: string }>(
          `select column_name as name from information_schema.columns where table_name = $1 and table_schema = current_schema() order by ordinal_position`,
          [table],
        )
      ).map((row) => row.name);
    const paymentColumns = await columns('payment');
    /** `count` copies of the payment, their ids `${prefix}1`, `${prefix}2`... */
    const copies = (prefix: string, count: number) =>
      sql(
        `insert into payment (${paymentColumns.join(', ')}) select ${paymentColumns
          .map((name) => (name === 'id' ? `'${prefix}' || g` : `p.${name}`))
          .join(', ')} from payment p, generate_series(1, ${count}) g where p.id = $1`,
        [payment.paymentId],
      );
    await copies('pay_burst_', 30_000);
    const historyColumns = await columns('payment_history');
    const copyHistory = (name: string) =>
      name === 'payment_id' ? `'pay_burst_' || g` : name === 'id' ? 'default' : `h.${name}`;
    const insertable = historyColumns.filter((name) => name !== 'id');
    await sql(
      `insert into payment_history (${insertable.join(', ')}) select ${insertable.map(copyHistory).join(', ')}
       from payment_history h, generate_series(1, 30000) g where h.payment_id = $1`,
      [payment.paymentId],
    );
    // What a worker does every 5 s (db/table-statistics.ts): the grown tables are analyzed.
    expect(await analyzeGrownTables(orm)).toContain('payment');
    await app.inject({ method: 'GET', url: `/api/payments/${payment.paymentId}`, headers: merchant.headers });

    const statement = (
      await sql<{ name: string }>(
        `select name from pg_prepared_statements where name like 'api_key_by_hash_with_payment%'`,
      )
    )[0]?.name;
    expect(statement).toBeDefined();
    const plan =
      // EXPLAIN EXECUTE takes no bound values: both are ours (a hex hash, a payment id).
      (
        await sql<{ 'QUERY PLAN': string }>(
          `explain execute ${statement}('${hashApiKey(merchant.apiKey)}', '${payment.paymentId}')`,
        )
      )
        .map((row) => row['QUERY PLAN'])
        .join('\n');
    expect(plan).toMatch(/Index Scan using payment_pkey on payment/);
    expect(plan).not.toMatch(/Seq Scan/);

    // A third more rows changes no index plan: the worker leaves it to autovacuum, and analyzes
    // again only once the table doubled (each analyze reads a 30,000-row sample).
    await copies('pay_more_', 10_000);
    await changesCounted(10_000);
    expect(await analyzeGrownTables(orm)).not.toContain('payment');
    await copies('pay_doubled_', 25_000);
    await changesCounted(35_000);
    expect(await analyzeGrownTables(orm)).toContain('payment');
  });
});
