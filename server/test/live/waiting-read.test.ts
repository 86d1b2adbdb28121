import { spawn } from 'node:child_process';
import type { CreatedApiKey, DashboardPayment } from '@pis/shared';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { startNotifications } from '../../src/db/notifications.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { startPaymentWaiters } from '../../src/payments/payment-waiters.ts';
import { DashboardBrowser, data } from '../dashboard/dashboard-browser.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, type Headers, type PaymentData, paymentBody, post } from '../payments/payment-fixtures.ts';

const { app, factories, clock, config, databaseUrl, waiters } = await createTestApp({ waiting: true });
const { headers } = await factories.createMerchant();

/** A second instance of the service on the same database: its own pool and listening connection. */
const otherOrm = await openOrm(databaseUrl, { poolMax: 2 });
const otherNotifications = startNotifications({ databaseUrl, logger: silentLogger() });
const other = await buildApp({
  config,
  orm: otherOrm,
  clock,
  waiters: await startPaymentWaiters(otherNotifications),
});
afterAll(async () => {
  await other.close();
  await otherNotifications.close();
  await otherOrm.close();
});

const get = (id: string, extra: Headers = {}, target = app) =>
  target.inject({ method: 'GET', url: `/api/payments/${id}`, headers: { ...headers, ...extra } });

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number; endedAt: number }> {
  const started = performance.now();
  const value = await work;
  const endedAt = performance.now();
  return { value, ms: endedAt - started, endedAt };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until this process has `count` open waits (the request reached its wait). */
async function waitingCount(count: number) {
  for (let tries = 0; tries < 200 && (waiters?.waiting ?? 0) < count; tries += 1) await pause(10);
  expect(waiters?.waiting).toBe(count);
}

/** A new payment and a read waiting (30 s) on its current ETag, once it waits. */
async function waitingOnNewPayment() {
  const { paymentId } = await created(app, headers);
  const etag = (await get(paymentId)).headers.etag as string;
  const waiting = timed(get(paymentId, { 'if-none-match': etag, prefer: 'wait=30' }));
  await waitingCount(1);
  return { paymentId, etag, waiting };
}

describe('GET /api/payments/{id} with If-None-Match and Prefer: wait', () => {
  test('every answer has an ETag that changes with the payment; without the headers nothing else changes', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } }));
    const first = await get(paymentId);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(first.headers['preference-applied']).toBeUndefined();
    expect((await get(paymentId)).headers.etag).toBe(etag);
    await post(app, headers, `/api/payments/${paymentId}/mock-bank/approve`);
    expect((await get(paymentId)).headers.etag).not.toBe(etag);
    // An ETag alone, or Prefer alone, never holds a read.
    const { ms } = await timed(
      Promise.all([get(paymentId, { 'if-none-match': etag }), get(paymentId, { prefer: 'wait=5' })]),
    );
    expect(ms).toBeLessThan(1_000);
  });

  test('a waiting read returns within 200 ms of a change made by another instance', async () => {
    const { paymentId, etag, waiting } = await waitingOnNewPayment();
    const changed = timed(post(other, headers, `/api/payments/${paymentId}/mock-bank/approve`));
    const [answer, change] = await Promise.all([waiting, changed]);
    const payment = expectSuccess<PaymentData>(answer.value);
    expect(payment.status).toBe('COMPLETED');
    expect(answer.value.headers['preference-applied']).toBe('wait=30');
    expect(answer.value.headers.etag).not.toBe(etag);
    // From the change's answer (after its commit) to the waiter's answer.
    const afterChange = answer.endedAt - change.endedAt;
    expect(afterChange).toBeLessThan(200);
  });

  test('a waiting read returns within 200 ms of a change committed by another OS process', async () => {
    const { paymentId, etag, waiting } = await waitingOnNewPayment();
    // An operator's SQL from a separate process: no code of ours on the writing side at all.
    const script = `import pg from 'pg';
      const client = new pg.Client({ connectionString: process.argv[1] });
      await client.connect();
      await client.query("update payment set updated_at = updated_at + interval '1 second' where id = $1", [process.argv[2]]);
      await client.end();
      process.stdout.write('committed');`;
    const change = timed(
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, databaseUrl, paymentId]);
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`))));
      }),
    );
    const [answer, changed] = await Promise.all([waiting, change]);
    expect(answer.value.headers.etag).not.toBe(etag);
    // The child's exit follows its commit, so this over-counts by the process's exit time.
    expect(answer.endedAt - changed.endedAt).toBeLessThan(200);
  });

  test('a read that times out returns the unchanged payment with the same ETag', async () => {
    const { paymentId, status } = await created(app, headers);
    const etag = (await get(paymentId)).headers.etag as string;
    const { value, ms } = await timed(get(paymentId, { 'if-none-match': etag, prefer: 'wait=1' }));
    expect(ms).toBeGreaterThanOrEqual(990);
    expect(ms).toBeLessThan(2_000);
    expect(expectSuccess<PaymentData>(value).status).toBe(status);
    expect(value.headers.etag).toBe(etag);
    expect(value.headers['preference-applied']).toBe('wait=1');
  });

  test('a wrong or stale ETag returns at once; wait above 60 is capped and says so', async () => {
    const { paymentId } = await created(app, headers);
    const stale = (await get(paymentId)).headers.etag as string;
    await post(app, headers, `/api/payments/${paymentId}/cancel`);
    for (const etag of [stale, '"nonsense"']) {
      const { value, ms } = await timed(get(paymentId, { 'if-none-match': etag, prefer: 'wait=600' }));
      expect(ms).toBeLessThan(500);
      expect(expectSuccess<PaymentData>(value).status).toBe('CANCELLED');
      expect(value.headers['preference-applied']).toBe('wait=60');
    }
  });

  test("another organization's payment is 404 at once", async () => {
    const { paymentId } = await created(app, headers);
    const etag = (await get(paymentId)).headers.etag as string;
    const stranger = await factories.createMerchant();
    const { value, ms } = await timed(
      app.inject({
        method: 'GET',
        url: `/api/payments/${paymentId}`,
        headers: { ...stranger.headers, 'if-none-match': etag, prefer: 'wait=30' },
      }),
    );
    // Exactly the answer of a read that does not wait.
    const plain = await app.inject({
      method: 'GET',
      url: `/api/payments/${paymentId}`,
      headers: stranger.headers,
    });
    expect(expectFailure(value, 404)).toEqual(expectFailure(plain, 404));
    expect(ms).toBeLessThan(500);
  });

  test('a timed step falling due wakes the waiter; the read catches it up', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } }));
    await post(app, headers, `/api/payments/${paymentId}/mock-bank/approve`);
    const authorized = await get(paymentId);
    expect(expectSuccess<PaymentData>(authorized).status).toBe('AUTHORIZED');
    // SUBMITTED falls due 5 s after approval; put the clock 300 ms before it, and let it run.
    clock.advance(5_000 - 300);
    const waiting = timed(
      get(paymentId, { 'if-none-match': authorized.headers.etag as string, prefer: 'wait=10' }),
    );
    await pause(100);
    clock.advance(300);
    const { value, ms } = await waiting;
    expect(expectSuccess<PaymentData>(value).status).toBe('SUBMITTED');
    expect(ms).toBeLessThan(1_500);
  });

  test('a waiting read counts once against the read rate limit', async () => {
    const { paymentId } = await created(app, headers);
    const before = Number((await get(paymentId)).headers['ratelimit-remaining']);
    const etag = (await get(paymentId)).headers.etag as string;
    const waited = await get(paymentId, { 'if-none-match': etag, prefer: 'wait=1' });
    expect(Number(waited.headers['ratelimit-remaining'])).toBe(before - 2);
  });

  test('shutting down answers waiters at once with the current state', async () => {
    const { paymentId, status } = await created(other, headers);
    const etag = (await get(paymentId, {}, other)).headers.etag as string;
    const waiting = timed(get(paymentId, { 'if-none-match': etag, prefer: 'wait=30' }, other));
    await pause(200);
    const closing = timed(other.close());
    const { value, ms } = await waiting;
    expect(expectSuccess<PaymentData>(value).status).toBe(status);
    expect(value.headers.etag).toBe(etag);
    // The wait was honoured (cut short): without the header, an SDK would take this server, and
    // the one replacing it, for one that never waits and poll for the rest of its wait.
    expect(value.headers['preference-applied']).toBe('wait=30');
    expect(ms).toBeLessThan(1_500);
    expect((await closing).ms).toBeLessThan(1_000);
  });
});

describe('dashboard.payments.get with ifNoneMatch and waitSeconds (the payment page, live)', () => {
  test('held until the payment changes, over the session', async () => {
    const b = new DashboardBrowser(app, '192.0.2.77');
    await b.signUp();
    const key = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
    );
    const keyHeaders = { 'x-api-key': key.secret };
    const { paymentId } = await created(app, keyHeaders);
    const page = data<DashboardPayment>(await b.query('payments.get', { paymentId }));
    const waiting = timed(b.query('payments.get', { paymentId, ifNoneMatch: page.etag, waitSeconds: 20 }));
    await waitingCount(1);
    const change = timed(post(app, keyHeaders, `/api/payments/${paymentId}/mock-bank/approve`));
    const [answer, changed] = await Promise.all([waiting, change]);
    const live = data<DashboardPayment>(answer.value);
    expect(live.payment.status).toBe('COMPLETED');
    expect(live.etag).not.toBe(page.etag);
    expect(answer.endedAt - changed.endedAt).toBeLessThan(200);
  });
});
