import type { CreatedApiKey } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { paymentBody } from '../payments/payment-fixtures.ts';
import { DashboardBrowser, data } from './dashboard-browser.ts';

/**
 * Issue 31 item 7: a self-serve organization starts with a tenth of the API's budgets, but its
 * dashboard's payment writes were counted only in the (far larger) dashboard budget: "New
 * payment" in a loop went round the reduced API budget. Now the dashboard's payment writes spend
 * the organization's API write budget, shared with its keys.
 */
const API_WRITES = 30;
const { app } = await createTestApp({
  config: {
    rateLimits: { ...testConfig().rateLimits, enabled: true, apiWrites: API_WRITES, dashboard: 1_000 },
  },
});

describe("the dashboard's payment writes spend the organization's API write budget", () => {
  test('a self-serve sign-up: a tenth, shared between its dashboard and its keys', async () => {
    const b = new DashboardBrowser(app, '192.0.2.55');
    await b.signUp();
    // The budget's window is a fixed minute: start well inside one, so the spending and the refusal
    // fall in the same window (a CI run once straddled the boundary and the refusal found a new one).
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 61_000 - intoMinute));
    const reduced = API_WRITES / 10;
    const statuses = [];
    for (let i = 0; i < reduced; i++) {
      statuses.push(
        (await b.mutation('payments.create', { payment: paymentBody(), idempotencyKey: `form-${i}` }))
          .statusCode,
      );
    }
    expect(statuses).toEqual(Array(reduced).fill(200));
    const refused = await b.mutation('payments.create', {
      payment: paymentBody(),
      idempotencyKey: 'form-over',
    });
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    // Its API key finds the same budget spent.
    const key = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Server', permissions: ['read', 'write'] }),
    );
    const viaApi = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { 'x-api-key': key.secret },
      payload: paymentBody(),
    });
    expect(viaApi.statusCode).toBe(429);
  }, 60_000);
});
