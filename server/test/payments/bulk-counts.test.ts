import { CreatePaymentInput, newEndToEndId, newPaymentId, receivePayment } from '@pis/shared';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { SEED_PAYMENTS, seedPayments } from '../../bench/seed-payments.ts';
import { outcomeKeys } from '../../src/db/migrations/Migration20261125174000_payment_day_outcome.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import { insertPayment } from '../../src/payments/payment-store.ts';
import { createTestApp } from '../helpers/test-app.ts';

/**
 * Issue 32 item 5: a statement that inserts many payments keeps the counts once per statement
 * (an import of a million did not finish in 25 minutes when each row upserted the same counter
 * rows), while the service's own connections keep the cheap row path for a single create.
 */
const { databaseUrl, orm, factories } = await createTestApp();

const COUNTERS = ['payment_count', 'payment_day_volume', 'payment_day_outcome'];

async function withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const countsPath = async (em: EntityManager) =>
  (await em.execute<{ path: string | null }[]>(`select current_setting('pis.counts', true) as path`))[0]
    ?.path ?? null;

/** The kept counts of an organization against the same counts made again from its rows. */
async function keptAndRecounted(organizationId: string) {
  return withClient(async (client) => {
    const read = async (sql: string) => (await client.query(sql, [organizationId])).rows;
    return {
      kept: {
        counts: await read(`select status, provider, sum(count)::int as n from payment_count
          where organization_id = $1 group by 1, 2 having sum(count) <> 0 order by 1, 2`),
        volume: await read(`select day::text, currency, sum(count)::int as n, sum(value)::text as value
          from payment_day_volume where organization_id = $1 group by 1, 2 order by 1, 2`),
        outcomes: await read(`select day::text, kind, key, sum(count)::int as n from payment_day_outcome
          where organization_id = $1 group by 1, 2, 3 having sum(count) <> 0 order by 1, 2, 3`),
      },
      recounted: {
        counts: await read(`select status, provider, count(*)::int as n from payment
          where organization_id = $1 and mode = 'test' group by 1, 2 order by 1, 2`),
        volume: await read(`select (created_at at time zone 'UTC')::date::text as day, currency,
          count(*)::int as n, sum(amount_value)::text as value from payment
          where organization_id = $1 and status = 'COMPLETED' and mode = 'test' group by 1, 2 order by 1, 2`),
        outcomes: await read(`select day::text, kind, key, sum(delta)::int as n
          from (${outcomeKeys('payment', 1)}) k where organization_id = $1 group by 1, 2, 3 order by 1, 2, 3`),
      },
    };
  });
}

/**
 * One statement inserting `payments` finished payments, in a session on the given path, and how
 * many counter rows it wrote (inserted or updated), read inside its own transaction.
 */
async function insertInOneStatement(organizationId: string, payments: number, path: 'row' | 'statement') {
  return withClient(async (client) => {
    await client.query('begin');
    if (path === 'row') await client.query(`set local pis.counts = 'row'`);
    await client.query(SEED_PAYMENTS, [organizationId, payments]);
    const { rows } = await client.query<{ written: number }>(
      `select sum(pg_stat_get_xact_tuples_inserted(c.oid) + pg_stat_get_xact_tuples_updated(c.oid))::int as written
         from pg_class c where c.relname = any($1)`,
      [COUNTERS],
    );
    await client.query('commit');
    return rows[0]?.written ?? 0;
  });
}

describe('kept counts of bulk inserts', () => {
  test("the service's create takes the row path on any connection; any other session the statement's", async () => {
    const { organizationId } = await factories.createMerchant();
    const change = receivePayment(
      CreatePaymentInput.parse({
        amount: { value: '1.00', currency: 'GBP' },
        toAccount: { accountName: 'Row Path Ltd', sortCode: '040004', accountNumber: '12345678' },
        reference: 'row path',
      }),
      { id: newPaymentId(), organizationId, endToEndId: newEndToEndId(), mode: 'test' },
      new Date(),
    );
    // The create's own statement chooses the row path for its transaction, whatever the
    // connection (reopened, or behind a transaction-mode pooler, set nothing at connect)...
    const during = await orm.em.fork().transactional(async (em) => {
      expect(await countsPath(em)).not.toBe('row');
      await insertPayment(em, change);
      return countsPath(em);
    });
    expect(during).toBe('row');
    // ...and only for it: the connection's next transaction is back on the statement path.
    expect(await countsPath(orm.em.fork())).not.toBe('row');
    const { kept, recounted } = await keptAndRecounted(organizationId);
    expect(kept).toEqual(recounted);
    const other = await withClient(
      async (client) => (await client.query(`select current_setting('pis.counts', true) as path`)).rows[0],
    );
    expect(other?.path ?? null).not.toBe('row');
  });

  test('one statement of 5,000 finished payments writes the counters a few times, not 5,000', async () => {
    const bulk = await factories.createMerchant();
    const written = await insertInOneStatement(bulk.organizationId, 5_000, 'statement');
    // A day's figures per key: the seed spans ~4 hours (one UTC day or two), a handful of keys.
    expect(written).toBeLessThan(100);
    const { kept, recounted } = await keptAndRecounted(bulk.organizationId);
    expect(kept).toEqual(recounted);

    // The row path writes once per row (what made a big import quadratic), to the same counts.
    const rowWise = await factories.createMerchant();
    expect(await insertInOneStatement(rowWise.organizationId, 500, 'row')).toBeGreaterThanOrEqual(500);
    const again = await keptAndRecounted(rowWise.organizationId);
    expect(again.kept).toEqual(again.recounted);
  });

  test("the bench's seed goes through the normal triggers and its counts are exact", async () => {
    const seeded = await factories.createMerchant();
    await seedPayments(databaseUrl, seeded.organizationId, 3_000);
    const { kept, recounted } = await keptAndRecounted(seeded.organizationId);
    expect(kept.counts.length).toBeGreaterThan(0);
    expect(kept).toEqual(recounted);
  });
});
