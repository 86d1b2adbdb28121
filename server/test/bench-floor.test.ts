import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { startBaseline } from '../bench/baseline.ts';
import { createTestDatabase } from './helpers/test-database.ts';

/**
 * The bench's floor (issue 32's decision) must do what it claims, or every ratio `npm run bench`
 * prints is against something else: a create and a read answered for its key only, and with
 * `--rate-limits` each request counted in the same statement.
 */
const database = await createTestDatabase();
afterAll(() => database.drop());

const CREATE_BODY = {
  amount: { value: '10.50', currency: 'GBP' },
  toAccount: { accountName: 'Bench Ltd', sortCode: '040004', accountNumber: '12345678' },
  reference: 'bench',
};

describe.each([{ countRequests: false }, { countRequests: true }])(
  "the bench's floor (countRequests: $countRequests)",
  ({ countRequests }) => {
    test('creates and reads a payment for its key, refuses another key, and counts when asked', async () => {
      const floor = await startBaseline(database.url, 2, { countRequests });
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query(`delete from baseline_rate_limit`);
        const headers = { 'x-api-key': floor.apiKey };
        const created = await floor.app.inject({
          method: 'POST',
          url: '/api/payments',
          headers,
          payload: CREATE_BODY,
        });
        expect(created.statusCode).toBe(201);
        const { paymentId } = created.json().data as { paymentId: string };
        const read = await floor.app.inject({ method: 'GET', url: `/api/payments/${paymentId}`, headers });
        expect(read.statusCode).toBe(200);
        expect(read.json().data).toMatchObject({ id: paymentId, status: 'AUTHORIZING' });
        expect(read.json().data.history.map((entry: { status: string }) => entry.status)).toEqual([
          'PENDING',
          'AUTHORIZING',
        ]);
        const stranger = { 'x-api-key': 'bl_not-a-key' };
        expect(
          (await floor.app.inject({ method: 'GET', url: `/api/payments/${paymentId}`, headers: stranger }))
            .statusCode,
        ).toBe(401);
        const counted = await client.query<{ key: string; hits: number }>(
          `select key, hits from baseline_rate_limit order by key`,
        );
        expect(counted.rows).toEqual(
          countRequests
            ? [
                { key: 'api-read:org', hits: 1 },
                { key: 'api-write:org', hits: 1 },
              ]
            : [],
        );
      } finally {
        await client.end();
        await floor.close();
      }
    });
  },
);
