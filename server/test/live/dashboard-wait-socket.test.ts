import { type CreatedApiKey, DASHBOARD_SESSION_COOKIE, type DashboardPayment } from '@pis/shared';
import { afterAll, expect, test } from 'vitest';
import { DashboardBrowser, data } from '../dashboard/dashboard-browser.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created } from '../payments/payment-fixtures.ts';

// An idle socket closes after 1 s: a held read must keep its socket for its whole wait.
const timeouts = { ...testConfig().timeouts, connectionMs: 1_000 };
const { app } = await createTestApp({ waiting: true, config: { timeouts } });
const url = await app.listen({ port: 0, host: '127.0.0.1' });
afterAll(() => app.close());

/** A signed-up session, a payment of its organization, and the page's first read (its etag). */
async function sessionOnNewPayment(address: string) {
  const b = new DashboardBrowser(app, address);
  await b.signUp();
  const key = data<CreatedApiKey>(
    await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
  );
  const { paymentId } = await created(app, { 'x-api-key': key.secret });
  const page = data<DashboardPayment>(await b.query('payments.get', { paymentId }));
  // Over a real socket (inject has none).
  const fetchTrpc = (path: string) =>
    fetch(`${url}/trpc/${path}`, { headers: { cookie: `${DASHBOARD_SESSION_COOKIE}=${b.cookie}` } });
  return { paymentId, etag: page.etag, fetchTrpc };
}

test("the dashboard's waiting read keeps its socket open beyond the idle timeout for its wait", async () => {
  const { paymentId, etag, fetchTrpc } = await sessionOnNewPayment('192.0.2.79');
  const input = encodeURIComponent(JSON.stringify({ paymentId, ifNoneMatch: etag, waitSeconds: 2 }));
  const started = performance.now();
  // Before the fix the socket was closed at 1 s, unanswered.
  const response = await fetchTrpc(`dashboard.payments.get?input=${input}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { data: DashboardPayment } };
  expect(body.result.data.etag).toBe(etag);
  expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
});

test('a batch of ten waiting reads adds one close listener to its response, not ten (no leak warning)', async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    const { paymentId, etag, fetchTrpc } = await sessionOnNewPayment('192.0.2.80');
    const one = { paymentId, ifNoneMatch: etag, waitSeconds: 1 };
    const names = Array.from({ length: 10 }, () => 'dashboard.payments.get').join(',');
    const input = encodeURIComponent(
      JSON.stringify(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [i, one]))),
    );
    const response = await fetchTrpc(`${names}?batch=1&input=${input}`);
    expect(response.status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings).toEqual([]);
  } finally {
    process.off('warning', onWarning);
  }
});
