import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { withIndexesAfterLoad } from '../bench/bulk-load.ts';
import { createTestApp } from './helpers/test-app.ts';

const { databaseUrl, factories, app } = await createTestApp();
const merchant = await factories.createMerchant();

const indexes = async (client: pg.Client) =>
  (
    await client.query<{ indexdef: string }>(
      `select indexdef from pg_indexes where tablename in ('payment', 'payment_history') order by indexname`,
    )
  ).rows.map((row) => row.indexdef);

describe("the bench's bulk load builds the secondary indexes after the rows", () => {
  test('the indexes are gone during the load and the same ones again after it; constraint indexes stay', async () => {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const before = await indexes(client);
      expect(before.some((definition) => definition.includes('gin_trgm_ops'))).toBe(true);
      let during: string[] = [];
      await client.query('begin');
      await withIndexesAfterLoad(client, ['payment', 'payment_history'], async () => {
        during = await indexes(client);
      });
      await client.query('commit');
      expect(during.length).toBeGreaterThan(0);
      expect(during.every((definition) => /_pkey\b/.test(definition))).toBe(true);
      expect(await indexes(client)).toEqual(before);
    } finally {
      await client.end();
    }
    // The service still works on the rebuilt table.
    const created = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: merchant.headers,
      payload: {
        toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
        amount: { value: '1.00', currency: 'GBP' },
        reference: 'after the load',
      },
    });
    expect(created.statusCode).toBe(201);
  });
});
