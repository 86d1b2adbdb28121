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
import { createApiKey, expectNoSidewaysScroll, openSection, signUp } from './support/dashboard-steps.ts';

/**
 * Issue 34 item 2 in the browser: the request log is in time order, newest first, and its pages
 * neither skip nor repeat an entry (the log once ordered by the id's text, so `9` came after
 * `15`, while paging compared numbers). 60 requests, 50 a page: the first page must hold the 50
 * newest in order, "Older requests" the other 10, then no further page.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const REQUESTS = 60;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('the request log across pages, %s', (label, viewport) => {
  it('newest first, the second page continuing where the first ended, none twice or missing', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: /status of 401/,
    });
    const email = `paging-${label}-${Date.now()}@example.com`;
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, { businessName: `Paging ${label}`, email, password: 'a long enough passphrase' });
    await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
    await openSection(page, 'API keys');
    const apiKey = await createApiKey(page, 'Server');
    await page.getByRole('button', { name: 'I have stored it' }).click();

    // One after another, so their times are in this order; each named by its request id.
    const idOf = (n: number) => `paging-${label}-${String(n).padStart(2, '0')}`;
    for (let n = 0; n < REQUESTS; n++) {
      const response = await fetch(`${inject('baseUrl')}/api/payments?limit=1`, {
        headers: { 'x-api-key': apiKey, 'x-request-id': idOf(n) },
      });
      expect(response.status).toBe(200);
    }

    const requestIds = async () =>
      (await page.getByRole('region', { name: 'Requests' }).locator('tbody tr').all()).length === 0
        ? []
        : await page
            .getByRole('region', { name: 'Requests' })
            .locator('tbody tr')
            .evaluateAll((rows) => rows.map((row) => row.lastElementChild?.textContent?.trim() ?? ''));
    await page.goto(`${inject('baseUrl')}/dashboard/logs/requests`);
    // The log is written shortly after the answers: look until the newest is there.
    for (let attempt = 0; attempt < 30; attempt++) {
      await page.getByRole('heading', { level: 1, name: 'Request log' }).waitFor();
      if ((await requestIds()).includes(idOf(REQUESTS - 1))) break;
      await page.waitForTimeout(500);
      await page.reload();
    }
    const newest = Array.from({ length: REQUESTS }, (_, n) => idOf(REQUESTS - 1 - n));
    const first = await requestIds();
    expect(first).toEqual(newest.slice(0, 50));
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `logs-paging-first-${label}`);

    await page.getByRole('link', { name: 'Older requests' }).click();
    await page.waitForURL(/before=/);
    await expect.poll(requestIds, { timeout: 10_000 }).toEqual(newest.slice(50));
    expect(await page.getByRole('link', { name: 'Older requests' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, `logs-paging-second-${label}`);
    assertNoConsoleErrors();
  });
});
