import type { CreatedApiKey, OrganizationBudgets } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { withinOneWindow } from '../helpers/rate-limit-window.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { DashboardBrowser, data } from './dashboard-browser.ts';

/**
 * Limits a merchant can see (issue 34 item 12): the dashboard shows the organization's budgets as
 * the server counts them (a tenth for a sign-up) and the current window's use; the API reference's
 * text is written from the same configuration, so it follows it.
 */
const rateLimits = {
  ...testConfig().rateLimits,
  enabled: true,
  apiReads: 900,
  apiWrites: 150,
  dashboard: 1000,
};
const { app } = await createTestApp({ config: { rateLimits } });

const description = async (on = app) =>
  ((await on.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { info: { description: string } })
    .info.description;

describe('the organization’s budgets', () => {
  test('a sign-up’s tenth of each, and what its keys used this window', async () => {
    const b = new DashboardBrowser(app, '198.51.100.31');
    await b.signUp();
    const key = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Till', permissions: ['read'] }),
    );
    // The reads and the budgets' read below in one window.
    await withinOneWindow(rateLimits.windowSeconds, 15_000);
    for (let n = 0; n < 3; n++) {
      const read = await app.inject({
        method: 'GET',
        url: '/api/payments',
        headers: { 'x-api-key': key.secret },
      });
      expect(read.statusCode).toBe(200);
      expect(read.headers['ratelimit-limit']).toBe('90');
    }
    const budgets = data<OrganizationBudgets>(await b.query('settings.budgets'));
    expect(budgets).toMatchObject({ enabled: true, windowSeconds: 60, reduced: true });
    const byName = Object.fromEntries(budgets.budgets.map((budget) => [budget.budget, budget]));
    expect(byName['api-read']).toMatchObject({ limit: 90, used: 3 });
    expect(byName['api-write']).toMatchObject({ limit: 15, used: 0 });
    expect(byName['api-read']?.resetSeconds).toBeGreaterThan(0);
    expect(byName['api-read']?.resetSeconds).toBeLessThanOrEqual(60);
    // The dashboard's own calls, this one's included.
    expect(byName.dashboard?.limit).toBe(1000);
    expect(byName.dashboard?.used).toBeGreaterThan(0);
  }, 60_000);

  test('the API reference says what the server applies, from its configuration', async () => {
    const text = await description();
    expect(text).toContain('Counted per organization, across all its API keys');
    expect(text).toContain('900 reads and 150 writes a minute');
    expect(text).toContain('a tenth (1/10) of each: 90 reads and 15 writes a minute');
    expect(text).not.toContain('per API key');

    const off = await createTestApp();
    expect(await description(off.app)).toContain('rate limits switched off');
  });
});
