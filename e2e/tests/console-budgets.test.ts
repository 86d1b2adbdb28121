import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import {
  callApi,
  createApiKey,
  expectNoSidewaysScroll,
  openSection,
  signUp,
} from './support/dashboard-steps.ts';

/**
 * Limits a merchant can see (issue 34 item 12): the API keys page shows the organization's
 * budgets and the current window's use; /docs says how the server applies them (per
 * organization, a tenth for a new sign-up), from the same configuration (the service's defaults here).
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 401/;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('budgets and the documented limits (%s)', (label, viewport) => {
  it('the API keys page shows a sign-up’s tenth and what its key used; /docs says the same rule', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Budget Shop ${label}`,
      email: `budget-${label}-${Date.now()}@shop.example`,
      password: 'a long enough passphrase',
    });
    await openSection(page, 'API keys');
    const apiKey = await createApiKey(page, 'Reader');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    for (let n = 0; n < 2; n++) expect((await callApi(apiKey, 'GET', '/payments')).status).toBe(200);

    const budgets = page.getByRole('region', { name: 'API budgets' });
    await budgets.getByRole('button', { name: 'Refresh' }).click();
    await budgets.getByText(/^2 of 60 a minute/).waitFor();
    await budgets.getByText(/^0 of 12 a minute/).waitFor();
    await budgets.getByText('a tenth of the usual budgets').waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `console-budgets-${label}`);

    await page.goto(`${inject('baseUrl')}/docs`);
    await page
      .getByText('Counted per organization, across all its API keys')
      .first()
      .waitFor({ timeout: 20_000 });
    const text = await page.evaluate(() => document.body.innerText);
    expect(text).toContain('600 reads and 120 writes a minute');
    expect(text).toContain('60 reads and 12 writes a minute');
    expect(text).not.toContain('Counted per API key');
    await screenshot(page, `console-docs-limits-${label}`);
    assertNoConsoleErrors();
  });
});
