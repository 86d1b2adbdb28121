import type {
  CreatedApiKey,
  DashboardPayment,
  Overview,
  Payment,
  PaymentList,
  QuickStart,
} from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, paymentBody, readPayment } from '../payments/payment-fixtures.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

const { app, clock, factories } = await createTestApp();

let addresses = 0;
/** A signed-up merchant with a read+write key made on the API keys page. */
async function sandboxApprove(headers: Record<string, string>, paymentId: string) {
  expectSuccess(
    await app.inject({ method: 'POST', url: `/api/payments/${paymentId}/mock-bank/approve`, headers }),
  );
}

async function merchant() {
  const b = new DashboardBrowser(app, `192.0.2.${++addresses}`);
  const session = await b.signUp();
  const key = data<CreatedApiKey>(
    await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
  );
  return { b, session, headers: { 'x-api-key': key.secret }, secret: key.secret };
}

describe('payments pages: the same functions and data as the REST API', () => {
  test('the first ten minutes: create with the key, see it listed, approve it from its page, COMPLETED with its timeline', async () => {
    const { b, headers } = await merchant();
    const payment = await created(app, headers);

    const list = data<PaymentList>(await b.query('payments.list', {}));
    expect(list.total).toBe(1);
    expect(list.payments[0]).toEqual(await readPayment(app, headers, payment.paymentId));

    const page = data<DashboardPayment>(await b.query('payments.get', { paymentId: payment.paymentId }));
    expect(page.payment.status).toBe('AUTHORIZING');
    expect(page.actions).toEqual({ cancel: true, approve: true, reject: true, advance: true, link: true });
    // The very link the API gave at creation (the Mock bank's page), while it is valid.
    expect(page.customerLink).toEqual({ url: payment.redirectUrl, expiresAt: expect.any(String) });

    const approved = data<Payment>(
      await b.mutation('payments.approve', { paymentId: payment.paymentId, scenario: { preset: 'instant' } }),
    );
    expect(approved.status).toBe('COMPLETED');
    expect(approved.statusHistory?.map((entry) => entry.status)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'COMPLETED',
    ]);
    const after = data<DashboardPayment>(await b.query('payments.get', { paymentId: payment.paymentId }));
    expect(after.customerLink).toBeNull();
    expect(after.actions).toEqual({
      cancel: false,
      approve: false,
      reject: false,
      advance: false,
      link: false,
    });
    expect(after.payment).toEqual(await readPayment(app, headers, payment.paymentId));
  });

  test('filters and paging are the REST list; never an overdue status (catch-up on read)', async () => {
    const { b, headers } = await merchant();
    const first = await created(app, headers);
    clock.advance(1000);
    const second = await created(app, headers, paymentBody({ amount: { value: '3.00', currency: 'EUR' } }));
    data(
      await b.mutation('payments.approve', { paymentId: first.paymentId, scenario: { preset: 'realistic' } }),
    );
    clock.advance(61_000);
    const completed = data<PaymentList>(await b.query('payments.list', { status: 'COMPLETED' }));
    expect(completed.payments.map((p) => p.paymentId)).toEqual([first.paymentId]);
    const page2 = data<PaymentList>(await b.query('payments.list', { limit: 1, offset: 1 }));
    expect(page2).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page2.payments.map((p) => p.paymentId)).toEqual([first.paymentId]);
    expect(data<PaymentList>(await b.query('payments.list', { provider: 'other' })).total).toBe(0);
    expect(second.paymentId).toBeTruthy();
    const bad = failure(await b.query('payments.list', { status: 'DONE', limit: 1000 }), 400);
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.details?.map((d) => d.field).sort()).toEqual(['limit', 'status']);
  });

  test('cancel and reject, with the API rules (409 once finished)', async () => {
    const { b, headers } = await merchant();
    const toCancel = await created(app, headers);
    expect(data<Payment>(await b.mutation('payments.cancel', { paymentId: toCancel.paymentId })).status).toBe(
      'CANCELLED',
    );
    expect(failure(await b.mutation('payments.cancel', { paymentId: toCancel.paymentId }), 409).code).toBe(
      'PAYMENT_NOT_CANCELLABLE',
    );
    const toReject = await created(app, headers);
    const rejected = data<Payment>(
      await b.mutation('payments.reject', { paymentId: toReject.paymentId, reason: 'AM04' }),
    );
    expect(rejected).toMatchObject({ status: 'FAILED', error: { code: 'AM04' } });
    expect(failure(await b.mutation('payments.approve', { paymentId: toReject.paymentId }), 409).code).toBe(
      'PAYMENT_ALREADY_DECIDED',
    );
    expect(
      failure(await b.mutation('payments.reject', { paymentId: toReject.paymentId, reason: 'nope' }), 400)
        .code,
    ).toBe('VALIDATION_FAILED');
  });

  test("another organization's payment is not found for every read and action, and is left unchanged", async () => {
    const { b } = await merchant();
    const other = await factories.createMerchant();
    const theirs = await created(app, other.headers);
    const before = await readPayment(app, other.headers, theirs.paymentId);
    const paymentId = theirs.paymentId;
    for (const response of [
      await b.query('payments.get', { paymentId }),
      await b.mutation('payments.cancel', { paymentId }),
      await b.mutation('payments.approve', { paymentId }),
      await b.mutation('payments.reject', { paymentId, reason: 'CUST' }),
    ]) {
      expect(failure(response, 404).message).toBe('Payment not found');
    }
    expect(data<PaymentList>(await b.query('payments.list', {})).total).toBe(0);
    expect(await readPayment(app, other.headers, paymentId)).toEqual(before);
  });

  test('actions need the CSRF token: without it nothing changes', async () => {
    const { b, headers } = await merchant();
    const payment = await created(app, headers);
    for (const [path, input] of [
      ['payments.cancel', { paymentId: payment.paymentId }],
      ['payments.approve', { paymentId: payment.paymentId }],
      ['payments.reject', { paymentId: payment.paymentId, reason: 'CUST' }],
    ] as const) {
      expect(failure(await b.mutation(path, input, { csrf: null }), 403).status).toBe(403);
    }
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('AUTHORIZING');
  });

  test('a hosted payment links to the hosted page until that link expires', async () => {
    const { b, headers } = await merchant();
    const hosted = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const page = data<DashboardPayment>(await b.query('payments.get', { paymentId: hosted.paymentId }));
    expect(page.customerLink?.url).toBe(hosted.redirectUrl);
    // Waiting for the customer to choose a bank: cancel yes, no decision at the bank yet.
    expect(page.actions).toEqual({ cancel: true, approve: false, reject: false, advance: true, link: true });
    // Past the hosted link's hour the link is gone (and the payment has expired by then anyway).
    for (let i = 0; i < 4; i++) {
      clock.advance(16 * 60_000);
      data(await b.query('account.session'));
    }
    expect(
      data<DashboardPayment>(await b.query('payments.get', { paymentId: hosted.paymentId })).customerLink,
    ).toBeNull();
  });
});

describe('overview and quick start', () => {
  test('organization, counts by status (every status), and 30 days of completed volume per day and currency', async () => {
    const { b, headers, session } = await merchant();
    const day1 = await created(app, headers, paymentBody({ amount: { value: '10.50', currency: 'GBP' } }));
    const day1b = await created(app, headers, paymentBody({ amount: { value: '0.25', currency: 'GBP' } }));
    const day1eur = await created(app, headers, paymentBody({ amount: { value: '7', currency: 'EUR' } }));
    for (const p of [day1, day1b, day1eur])
      data(await b.mutation('payments.approve', { paymentId: p.paymentId }));
    const pending = await created(app, headers);
    data(await b.mutation('payments.cancel', { paymentId: pending.paymentId }));
    await created(app, headers);

    const overview = data<Overview>(await b.query('overview'));
    expect(overview.organization).toEqual(session.organization);
    expect(overview.countsByStatus).toEqual({
      PENDING: 0,
      AUTHORIZING: 1,
      AUTHORIZED: 0,
      SUBMITTED: 0,
      ACCEPTED: 0,
      COMPLETED: 3,
      FAILED: 0,
      CANCELLED: 1,
      EXPIRED: 0,
    });
    const today = clock.now().toISOString().slice(0, 10);
    expect(overview.volume).toEqual([
      { day: today, currency: 'EUR', value: '7', count: 1 },
      { day: today, currency: 'GBP', value: '10.75', count: 2 },
    ]);
  });

  test('volume covers the last 30 UTC days only', async () => {
    const { b, headers, session } = await merchant();
    const old = await created(app, headers);
    data(await b.mutation('payments.approve', { paymentId: old.paymentId }));
    const day = old.createdAt.slice(0, 10);
    // The session ends long before; sign in again each time.
    const overviewAfter = async (days: number) => {
      clock.advance(days * 24 * 3_600_000);
      const again = new DashboardBrowser(app, `192.0.2.${++addresses}`);
      await again.signIn(session.user.email, session.password);
      return data<Overview>(await again.query('overview'));
    };
    expect((await overviewAfter(29)).volume).toEqual([{ day, currency: 'GBP', value: '10.50', count: 1 }]);
    const later = await overviewAfter(1);
    expect(later.volume).toEqual([]);
    expect(later.countsByStatus.COMPLETED).toBe(1);
  });

  test('volume is kept with each write: across days, each payment once, on its creation day, expiries never', async () => {
    const { headers, session } = await merchant();
    const start = clock.now();
    const days: string[] = [];
    // One payment a day for 6 days: completed on even days, left to expire on odd ones.
    for (let day = 0; day < 6; day++) {
      clock.set(new Date(start.getTime() + day * 86_400_000));
      const payment = await created(
        app,
        headers,
        paymentBody({ amount: { value: `${day + 1}.10`, currency: 'GBP' } }),
      );
      if (day % 2 === 0) await sandboxApprove(headers, payment.paymentId);
      days.push(payment.createdAt.slice(0, 10));
    }
    const overviewNow = async () => {
      const again = new DashboardBrowser(app, `192.0.2.${++addresses}`);
      await again.signIn(session.user.email, session.password);
      return data<Overview>(await again.query('overview'));
    };
    const first = await overviewNow();
    expect(first.countsByStatus).toMatchObject({ COMPLETED: 3, EXPIRED: 2, AUTHORIZING: 1 });
    expect(first.volume).toEqual([
      { day: days[0], currency: 'GBP', value: '1.10', count: 1 },
      { day: days[2], currency: 'GBP', value: '3.10', count: 1 },
      { day: days[4], currency: 'GBP', value: '5.10', count: 1 },
    ]);
    // Asked again (and a day later, once the last one expired): the same volume.
    expect(await overviewNow()).toEqual(first);
    clock.advance(86_400_000);
    const later = await overviewNow();
    expect(later.countsByStatus).toMatchObject({ COMPLETED: 3, EXPIRED: 3, AUTHORIZING: 0 });
    expect(later.volume).toEqual(first.volume);
  });

  test('a payment that completes while nobody looks counts on its creation day once it is caught up', async () => {
    const { b, headers, session } = await merchant();
    const payment = await created(app, headers, paymentBody({ amount: { value: '42.00', currency: 'EUR' } }));
    // The realistic timeline completes a minute after approval; nobody reads it for three days.
    data(
      await b.mutation('payments.approve', {
        paymentId: payment.paymentId,
        scenario: { preset: 'realistic' },
      }),
    );
    clock.advance(3 * 86_400_000);
    const again = new DashboardBrowser(app, `192.0.2.${++addresses}`);
    await again.signIn(session.user.email, session.password);
    const overview = data<Overview>(await again.query('overview'));
    expect(overview.volume).toEqual([
      { day: payment.createdAt.slice(0, 10), currency: 'EUR', value: '42.00', count: 1 },
    ]);
  });

  test('quick start: base URL and key prefixes, never a whole key', async () => {
    const { b, secret } = await merchant();
    const quick = data<QuickStart>(await b.query('quickStart'));
    expect(quick).toMatchObject({ apiBaseUrl: 'http://localhost:3000/api', approvedProviders: ['mock'] });
    expect(quick.apiKeys).toEqual([
      { id: expect.any(String), name: 'Server', prefix: secret.slice(0, 17), permissions: ['read', 'write'] },
    ]);
    expect(JSON.stringify(quick)).not.toContain(secret.slice(17));
    expectSuccess(await app.inject({ method: 'GET', url: '/api/banks', headers: { 'x-api-key': secret } }));
  });
});
