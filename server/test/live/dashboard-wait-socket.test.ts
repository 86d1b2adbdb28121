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

test("the dashboard's waiting read keeps its socket open beyond the idle timeout for its wait", async () => {
  const b = new DashboardBrowser(app, '192.0.2.79');
  await b.signUp();
  const key = data<CreatedApiKey>(
    await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
  );
  const { paymentId } = await created(app, { 'x-api-key': key.secret });
  const page = data<DashboardPayment>(await b.query('payments.get', { paymentId }));
  const input = encodeURIComponent(JSON.stringify({ paymentId, ifNoneMatch: page.etag, waitSeconds: 2 }));
  const started = performance.now();
  // Over a real socket (inject has none): before the fix the socket was closed at 1 s, unanswered.
  const response = await fetch(`${url}/trpc/dashboard.payments.get?input=${input}`, {
    headers: { cookie: `${DASHBOARD_SESSION_COOKIE}=${b.cookie}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { data: DashboardPayment } };
  expect(body.result.data.etag).toBe(page.etag);
  expect(performance.now() - started).toBeGreaterThanOrEqual(1_900);
});
