import type { CreatedApiKey, CreatedPayment, Payment } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

const { app } = await createTestApp();

let addresses = 0;
const signedUp = async () => {
  const b = new DashboardBrowser(app, `198.51.100.${++addresses}`);
  await b.signUp();
  return b;
};

const BODY = {
  amount: { value: '18.40', currency: 'GBP' },
  toAccount: { accountName: 'Corner Café', sortCode: '12-34-56', accountNumber: '12345678' },
  reference: 'Table 4',
  flowType: 'API_ONLY',
  mockBank: { completeAfterSeconds: 5 },
};

describe('New payment on the dashboard: the REST create, with the session as the caller', () => {
  test('creates the payment the API would, with its customer link; the same key twice creates one', async () => {
    const b = await signedUp();
    const first = data<CreatedPayment>(
      await b.mutation('payments.create', { payment: BODY, idempotencyKey: 'form-1' }),
    );
    expect(first).toMatchObject({ status: 'AUTHORIZING', provider: 'mock', amount: { value: '18.40' } });
    expect(first.redirectUrl).toMatch(/\/mock-bank\/[^/]+$/);

    // A double submit or a retry: the first payment again, nothing new.
    const again = data<CreatedPayment>(
      await b.mutation('payments.create', { payment: BODY, idempotencyKey: 'form-1' }),
    );
    expect(again.paymentId).toBe(first.paymentId);

    // The merchant's API sees the very payment, in its organization.
    const key = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Read', permissions: ['read'] }),
    );
    const read = expectSuccess<Payment>(
      await app.inject({
        method: 'GET',
        url: `/api/payments/${first.paymentId}`,
        headers: { 'x-api-key': key.secret },
      }),
    );
    expect(read).toMatchObject({ reference: { reference: 'Table 4' }, toAccount: { sortCode: '123456' } });
    const list = await b.query('payments.list', {});
    expect(data<{ total: number }>(list).total).toBe(1);
  });

  test('the API’s own rules answer bad input: 400 VALIDATION_FAILED naming the fields, nothing created', async () => {
    const b = await signedUp();
    const refused = failure(
      await b.mutation('payments.create', {
        payment: { ...BODY, amount: { value: '-1', currency: 'GBP' }, toAccount: { accountName: '' } },
        idempotencyKey: 'form-2',
      }),
      400,
    );
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(refused.details?.map((detail) => detail.field)).toEqual(
      expect.arrayContaining([expect.stringContaining('amount')]),
    );
    expect(data<{ total: number }>(await b.query('payments.list', {})).total).toBe(0);
  });

  test('needs a session and the CSRF header', async () => {
    const b = await signedUp();
    failure(
      await b.mutation('payments.create', { payment: BODY, idempotencyKey: 'form-3' }, { csrf: null }),
      403,
    );
    const stranger = new DashboardBrowser(app, '198.51.100.200');
    failure(await stranger.mutation('payments.create', { payment: BODY, idempotencyKey: 'form-4' }), 401);
  });
});
