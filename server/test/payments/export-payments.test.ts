import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { exportPayments } from '../../src/payments/export-payments.ts';
import { expectFailure, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, domainDeps, paymentBody, post, SECOND } from './payment-fixtures.ts';

const { app, factories, clock, orm, config } = await createTestApp();
const merchant = await factories.createMerchant();
const { headers } = merchant;
const other = await factories.createMerchant();

const HEADER = [
  'paymentId',
  'createdAt',
  'updatedAt',
  'completedAt',
  'expiresAt',
  'status',
  'isoStatus',
  'isoReason',
  'amount',
  'currency',
  'reference',
  'endToEndId',
  'payeeName',
  'payeeAccount',
  'provider',
  'bankId',
];

const exported = async (query = '', as = headers) => {
  const answer = await app.inject({ method: 'GET', url: `/api/payments/export${query}`, headers: as });
  expect(answer.statusCode, answer.body).toBe(200);
  expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
  expect(answer.headers['content-disposition']).toBe('attachment; filename="payments.csv"');
  const rows = parse(answer.body) as string[][];
  expect(rows[0]).toEqual(HEADER);
  return rows.slice(1).map((row) => Object.fromEntries(HEADER.map((name, index) => [name, row[index]])));
};

const plain = await created(
  app,
  headers,
  paymentBody({
    reference: { reference: 'INV-1, "quoted"', endToEndId: 'E2E-PLAIN' },
    amount: { value: '10.50', currency: 'GBP' },
  }),
);
await post(app, headers, `/api/payments/${plain.paymentId}/mock-bank/approve`, {});
clock.advance(60 * SECOND);
const formulas = await created(
  app,
  headers,
  paymentBody({
    reference: '=HYPERLINK("http://evil.example","click")',
    amount: { value: '7', currency: 'EUR' },
    toAccount: { accountName: '@SUM(A1:A9)', iban: 'DE89370400440532013000' },
  }),
);
clock.advance(60 * SECOND);
const moreFormulas = ['+1+1', '-2+3', '\tTAB', '\rCR'];
for (const reference of moreFormulas) {
  const { paymentId } = await created(app, headers, paymentBody({ reference: `x${reference}` }));
  // The API trims references (so no tab or CR first): written in SQL, as an import might.
  await orm.em.execute('update payment set reference = ? where id = ?', [reference, paymentId]);
  clock.advance(SECOND);
}
await created(app, other.headers, paymentBody({ reference: 'not yours' }));

describe('GET /api/payments/export', () => {
  test('a header row and one row per payment, newest first: times in UTC, amounts as written', async () => {
    const rows = await exported();
    expect(rows).toHaveLength(6);
    const first = rows.at(-1) as Record<string, string>;
    expect(first).toMatchObject({
      paymentId: plain.paymentId,
      status: 'COMPLETED',
      isoStatus: 'ACSC',
      amount: '10.50',
      currency: 'GBP',
      reference: 'INV-1, "quoted"',
      endToEndId: 'E2E-PLAIN',
      payeeName: 'Acme Ltd',
      payeeAccount: '123456 12345678',
      provider: 'mock',
      createdAt: plain.createdAt,
    });
    for (const time of ['createdAt', 'updatedAt', 'completedAt', 'expiresAt'] as const) {
      expect(first[time]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(rows.find((row) => row.paymentId === formulas.paymentId)).toMatchObject({
      amount: '7',
      currency: 'EUR',
      payeeAccount: 'DE89370400440532013000',
      completedAt: '',
    });
  });

  test('cells a spreadsheet would run as formulas are made inert', async () => {
    const rows = await exported();
    const row = rows.find((candidate) => candidate.paymentId === formulas.paymentId);
    expect(row?.reference).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(row?.payeeName).toBe(`'@SUM(A1:A9)`);
    const references = rows.map((candidate) => candidate.reference);
    for (const reference of moreFormulas) expect(references).toContain(`'${reference}`);
  });

  test('the same filters as the list; another organization never appears', async () => {
    expect((await exported('?status=COMPLETED')).map((row) => row.paymentId)).toEqual([plain.paymentId]);
    expect((await exported('?currency=EUR')).map((row) => row.paymentId)).toEqual([formulas.paymentId]);
    expect((await exported('?search=e2e-plain')).map((row) => row.paymentId)).toEqual([]);
    expect((await exported('?search=E2E-PLAIN')).map((row) => row.paymentId)).toEqual([plain.paymentId]);
    expect((await exported('?search=hyperlink')).map((row) => row.paymentId)).toEqual([formulas.paymentId]);
    const to = encodeURIComponent(plain.createdAt);
    expect((await exported(`?createdTo=${to}`)).map((row) => row.paymentId)).toEqual([plain.paymentId]);
    expect(await exported('?search=not%20yours')).toEqual([]);
    expect(await exported('', other.headers)).toHaveLength(1);
  });

  test('bad filters answer 400 VALIDATION_FAILED (JSON), permission read, key required', async () => {
    const failed = async (query: string) =>
      expectValidationFailed(
        await app.inject({ method: 'GET', url: `/api/payments/export${query}`, headers }),
      );
    expect((await failed(`?search=${'x'.repeat(10_000)}`))[0]?.field).toBe('search');
    expect(await failed('?createdFrom=2026-11-02T00:00:00Z&createdTo=2026-11-01T00:00:00Z')).toEqual([
      { field: 'createdFrom', message: 'must not be after createdTo' },
    ]);
    expect((await failed('?limit=10'))[0]).toEqual({ field: 'limit', message: 'is not a known parameter' });
    const writer = await factories.createKey(merchant.organizationId, 'write');
    expect(
      expectFailure(
        await app.inject({
          method: 'GET',
          url: '/api/payments/export',
          headers: { 'x-api-key': writer.apiKey },
        }),
        403,
      ).message,
    ).toBe('API key lacks read permission');
    expectFailure(await app.inject({ method: 'GET', url: '/api/payments/export' }), 401);
  });

  test('a client that stops reading half-way stops the reading of pages', async () => {
    // 2,000 more payments, copied in SQL from one made through the API.
    const columns = (
      await orm.em.execute<{ column_name: string }[]>(
        `select column_name from information_schema.columns where table_name = 'payment' order by ordinal_position`,
      )
    ).map((row) => row.column_name);
    const values = columns.map((column) =>
      column === 'id'
        ? `p.id || '_' || g`
        : column === 'created_at'
          ? `p.created_at - g * interval '1 millisecond'`
          : `p.${column}`,
    );
    await orm.em.execute(
      `insert into payment (${columns.join(', ')}) select ${values.join(', ')}
        from payment p, generate_series(1, 2000) g where p.id = ?`,
      [plain.paymentId],
    );
    const deps = domainDeps(orm, clock, config);
    let pages = 0;
    const stream = await exportPayments(
      deps,
      { organizationId: merchant.organizationId, approvedProviders: ['mock'] },
      {},
      { pageSize: 20, onPage: () => pages++ },
    );
    const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
    expect(first.toString()).toMatch(/^paymentId,createdAt/);
    stream.destroy();
    const atDestroy = pages;
    await sleep(300);
    // The buffers hold a few pages at most; the 100 pages of the whole export are never read.
    expect(pages).toBeLessThanOrEqual(atDestroy + 1);
    expect(pages).toBeLessThan(30);

    // Over HTTP: the client leaves after the first bytes; the server carries on answering.
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address() as { port: number };
    const abort = new AbortController();
    const response = await fetch(`http://127.0.0.1:${address.port}/api/payments/export`, {
      headers,
      signal: abort.signal,
    });
    const reader = response.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    abort.abort();
    const after = await fetch(`http://127.0.0.1:${address.port}/api/payments?limit=1`, { headers });
    expect(after.status).toBe(200);
    expect(((await after.json()) as { data: { total: number } }).data.total).toBe(2006);
  });
});
