import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';

/** The browser logs the error status of a refused call; these tests provoke exactly that. */
const REFUSED_CALL = /Failed to load resource/;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe("a suspended merchant's customer pages", () => {
  const links = inject('suspendedMerchantLinks');

  for (const [name, url] of [
    ['hosted page', links.hosted],
    ['Mock bank page', links.mockBank],
  ] as const) {
    it(`${name}: a clear page that nothing was paid, and no way to act`, async () => {
      const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
        expectedErrors: REFUSED_CALL,
      });
      await page.goto(url);
      await page.getByRole('heading', { name: 'This merchant can’t take payments right now' }).waitFor();
      expect(await page.getByText(/Nothing has been paid/).count()).toBe(1);
      // No bank picker, no Log in / Approve, no retry.
      expect(await page.getByRole('button').count()).toBe(0);
      expect(await page.locator('[data-error-kind="MERCHANT_SUSPENDED"]').count()).toBe(1);
      await expectAccessible(page);
      await screenshot(page, `suspended-merchant-${name.replaceAll(' ', '-').toLowerCase()}`);
      assertNoConsoleErrors();
    });
  }
});
