import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('addresses that are not payment links', () => {
  it('get a page, not a blank screen', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    await page.goto(`${inject('baseUrl')}/pay`);
    await expect(page.getByRole('heading', { name: 'Page not found' }).textContent()).resolves.toBe(
      'Page not found',
    );
    await expectAccessible(page);
    await screenshot(page, 'not-found');
    assertNoConsoleErrors();
  });
});
