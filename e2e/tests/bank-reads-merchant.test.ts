import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import { logInAtMockBank } from './support/customer-steps.ts';
import { createPayment } from './support/merchant-api.ts';

/**
 * What the customer reads at the bank is the merchant's (issue 34 item 7): with no reference
 * given, the Mock bank shows the merchant's name and a short code, never the 32-character hex id;
 * the payee's account as 04-00-04 12345678.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('the Mock bank page of a payment without a reference', () => {
  it('shows the merchant’s name and a short code, and the payee’s account formatted', async () => {
    const created = await createPayment({ reference: undefined });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport: PHONE });
    await page.goto(created.redirectUrl as string);
    await logInAtMockBank(page);
    const summary = page.locator('.summary');
    expect(await summary.getByText(/^E2E Shop [0-9A-HJKMNP-TV-Z]{6}$/).count()).toBe(1);
    expect(await summary.textContent()).not.toMatch(/[0-9A-F]{32}/);
    expect(await page.getByTestId('payee-account').textContent()).toBe('04-00-04 12345678');
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport);
      await expectAccessible(page);
    }
    await screenshot(page, 'mock-bank-merchant-reference');
    assertNoConsoleErrors();
  });
});
