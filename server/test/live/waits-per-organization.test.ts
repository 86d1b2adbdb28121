import type { CreatedApiKey, DashboardPayment } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { DashboardBrowser, data } from '../dashboard/dashboard-browser.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, type Headers, type PaymentData } from '../payments/payment-fixtures.ts';

// Twenty waits per organization in this process, so two for one made by sign-up (a tenth);
// reads far under their own budget.
const rateLimits = { ...testConfig().rateLimits, enabled: true, apiReads: 10_000, waitsPerOrganization: 20 };
const { app, factories, waiters } = await createTestApp({ waiting: true, config: { rateLimits } });

const get = (headers: Headers, id: string, extra: Headers = {}) =>
  app.inject({ method: 'GET', url: `/api/payments/${id}`, headers: { ...headers, ...extra } });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitingCount(count: number) {
  for (let tries = 0; tries < 200 && (waiters?.waiting ?? 0) < count; tries += 1) await pause(10);
  expect(waiters?.waiting).toBe(count);
}

/** A waiting read (30 s) on a new payment's current ETag. */
async function waitOnNewPayment(headers: Headers) {
  const { paymentId } = await created(app, headers);
  const etag = (await get(headers, paymentId)).headers.etag as string;
  const started = performance.now();
  const answer = get(headers, paymentId, { 'if-none-match': etag, prefer: 'wait=30' });
  return { paymentId, answer, started };
}

describe('waits an organization may hold at once in one process (RATE_LIMIT_WAITS_PER_ORGANIZATION)', () => {
  test('beyond them a read answers at once, as one that did not ask; other organizations still wait', async () => {
    // Self-serve sign-up: a tenth of the default allowance (20 / 10 = 2).
    const b = new DashboardBrowser(app, '192.0.2.78');
    await b.signUp();
    const key = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
    );
    // A second key of the same organization does not bring a second allowance.
    const secondKey = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Other', permissions: ['read', 'write'] }),
    );
    const held = [await waitOnNewPayment({ 'x-api-key': key.secret })];
    held.push(await waitOnNewPayment({ 'x-api-key': secondKey.secret }));
    await waitingCount(2);

    const refused = await waitOnNewPayment({ 'x-api-key': key.secret });
    const answer = await refused.answer;
    expect(performance.now() - refused.started).toBeLessThan(1_000);
    expectSuccess<PaymentData>(answer);
    expect(answer.headers.etag).toBeDefined();
    expect(answer.headers['preference-applied']).toBeUndefined();

    // The dashboard's waiting read counts against the same allowance.
    const page = data<DashboardPayment>(await b.query('payments.get', { paymentId: refused.paymentId }));
    const startedPage = performance.now();
    data<DashboardPayment>(
      await b.query('payments.get', {
        paymentId: refused.paymentId,
        ifNoneMatch: page.etag,
        waitSeconds: 20,
      }),
    );
    expect(performance.now() - startedPage).toBeLessThan(1_000);

    // Another organization is not held back by this one.
    const stranger = await factories.createMerchant();
    const theirs = await waitOnNewPayment(stranger.headers);
    await waitingCount(3);

    // The held ones go on waiting until something changes, then answer as usual.
    for (const { paymentId, answer: waiting } of [...held, theirs]) {
      const headers = held.some((h) => h.paymentId === paymentId)
        ? { 'x-api-key': key.secret }
        : stranger.headers;
      await app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers });
      const done = await waiting;
      expect(expectSuccess<PaymentData>(done).status).toBe('CANCELLED');
      expect(done.headers['preference-applied']).toBe('wait=30');
    }
    await waitingCount(0);
  });
});
