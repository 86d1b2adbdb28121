import { describe, expect, test } from 'vitest';
import { expectFailure, expectSuccess, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, getPayment, type PaymentData, paymentBody, post, SECOND } from './payment-fixtures.ts';

const { app, factories, clock } = await createTestApp();
const merchant = await factories.createMerchant();
const { headers } = merchant;
const other = await factories.createMerchant();

interface ListData {
  payments: PaymentData[];
  total: number;
  limit: number;
  offset: number;
}
const list = async (query = '', as = headers) =>
  expectSuccess<ListData>(await app.inject({ method: 'GET', url: `/api/payments${query}`, headers: as }));

// 3 payments a second apart, then 4 in the same instant (ties broken by id), then one of another org.
const ids: string[] = [];
for (let i = 0; i < 3; i++) {
  ids.push((await created(app, headers, paymentBody({ reference: `t${i}` }))).paymentId);
  clock.advance(SECOND);
}
for (let i = 0; i < 4; i++) {
  ids.push(
    (await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES', reference: `same${i}` }))).paymentId,
  );
}
const foreign = (await created(app, other.headers)).paymentId;
await post(app, headers, `/api/payments/${ids[0]}/mock-bank/approve`, {});
await post(app, headers, `/api/payments/${ids[1]}/cancel`);
const newestFirst = [...ids.slice(3).sort().reverse(), ids[2], ids[1], ids[0]];

describe('GET /api/payments', () => {
  test('newest first, ties by id descending; defaults limit 20 offset 0; full payments with history', async () => {
    const data = await list();
    expect(data).toMatchObject({ total: 7, limit: 20, offset: 0 });
    expect(data.payments.map((payment) => payment.paymentId)).toEqual(newestFirst);
    const first = data.payments.at(-1) as PaymentData;
    expect(first.status).toBe('COMPLETED');
    expect(first.statusHistory.map((entry) => entry.status)).toEqual(['PENDING', 'AUTHORIZING', 'COMPLETED']);
    // Same shape as GET /payments/{id}.
    expect(first).toEqual(expectSuccess(await getPayment(app, headers, first.paymentId)));
  });

  test('pages are stable and do not overlap, total counts every page', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 8; offset += 3) {
      const page = await list(`?limit=3&offset=${offset}`);
      expect(page).toMatchObject({ total: 7, limit: 3, offset });
      seen.push(...page.payments.map((payment) => payment.paymentId));
    }
    expect(seen).toEqual(newestFirst);
    expect((await list('?offset=100')).payments).toEqual([]);
    expect((await list('?offset=100')).total).toBe(7);
  });

  test('filters by status and provider, total follows the filter', async () => {
    expect((await list('?status=COMPLETED')).payments.map((payment) => payment.paymentId)).toEqual([ids[0]]);
    expect((await list('?status=CANCELLED')).total).toBe(1);
    const pending = await list('?status=PENDING&limit=2');
    expect(pending.total).toBe(4);
    expect(pending.payments.map((payment) => payment.status)).toEqual(['PENDING', 'PENDING']);
    expect((await list('?provider=mock')).total).toBe(7);
    expect((await list('?provider=other')).total).toBe(0);
    expect(
      (await list('?provider=mock&status=AUTHORIZING')).payments.map((payment) => payment.paymentId),
    ).toEqual([ids[2]]);
  });

  test('bounds: limit 1..100, offset >= 0, status enumerated, provider at most 50', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?limit=1.5',
      '?offset=-1',
      '?status=DONE',
    ]) {
      expectValidationFailed(await app.inject({ method: 'GET', url: `/api/payments${query}`, headers }));
    }
    expectValidationFailed(
      await app.inject({ method: 'GET', url: `/api/payments?provider=${'p'.repeat(51)}`, headers }),
    );
    expect((await list('?limit=100')).limit).toBe(100);
    // Once an unfiltered list: an unknown parameter must not quietly mean "no filter".
    expect(
      await expectValidationFailed(
        await app.inject({ method: 'GET', url: '/api/payments?status[]=COMPLETED&limit=5', headers }),
      ),
    ).toEqual([{ field: 'status[]', message: 'is not a known parameter' }]);
    expect((await list('?limit=1')).payments).toHaveLength(1);
  });

  test("another organization's payments are invisible: not listed, and 404 Payment not found", async () => {
    expect((await list()).payments.map((payment) => payment.paymentId)).not.toContain(foreign);
    expect((await list('', other.headers)).payments.map((payment) => payment.paymentId)).toEqual([foreign]);
    for (const [method, url] of [
      ['GET', `/api/payments/${foreign}`],
      ['POST', `/api/payments/${foreign}/sync`],
      ['POST', `/api/payments/${foreign}/cancel`],
      ['POST', `/api/payments/${foreign}/mock-bank/approve`],
      ['POST', `/api/payments/${foreign}/mock-bank/reject`],
      ['GET', '/api/payments/pay_doesnotexist'],
    ] as const) {
      expect(expectFailure(await app.inject({ method, url, headers }), 404), url).toEqual({
        message: 'Payment not found',
      });
    }
    // ...and untouched by the attempts.
    expect((await list('', other.headers)).payments[0]?.status).toBe('AUTHORIZING');
  });

  test('permissions: read for list, get and sync; write for cancel and the sandbox helpers', async () => {
    const reader = await factories.createKey(merchant.organizationId, 'read');
    const writer = await factories.createKey(merchant.organizationId, 'write');
    const asReader = { 'x-api-key': reader.apiKey };
    const asWriter = { 'x-api-key': writer.apiKey };
    const id = ids[2] as string;
    expect((await list('', asReader)).total).toBe(7);
    expectSuccess(await getPayment(app, asReader, id));
    expectSuccess(await post(app, asReader, `/api/payments/${id}/sync`));
    for (const path of ['cancel', 'mock-bank/approve', 'mock-bank/reject']) {
      expect(expectFailure(await post(app, asReader, `/api/payments/${id}/${path}`, {}), 403).message).toBe(
        'API key lacks write permission',
      );
    }
    expect(
      expectFailure(await app.inject({ method: 'GET', url: '/api/payments', headers: asWriter }), 403)
        .message,
    ).toBe('API key lacks read permission');
    expectFailure(await getPayment(app, asWriter, id), 403);
    expectFailure(await app.inject({ method: 'GET', url: '/api/payments' }), 401);
  });
});
