import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';
import { expectNoSidewaysScroll } from './support/dashboard-steps.ts';
import { createPayment } from './support/merchant-api.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** The first bank's box and the top of the pinned "Continue" (with the ring of card colour around it). */
async function firstScreen(page: Page) {
  const bank = await page
    .getByRole('listbox', { name: 'Choose your bank' })
    .getByRole('option')
    .first()
    .boundingBox();
  const button = await page.locator('.picker__continue').boundingBox();
  const ring = await page
    .locator('.picker__continue')
    .evaluate((element) => Number.parseFloat(getComputedStyle(element).boxShadow.split(' ').at(-1) ?? '0'));
  return { bank, buttonTop: (button?.y ?? 0) - ring, viewport: page.viewportSize() };
}

describe('the hosted picker’s first screen', () => {
  for (const viewport of [
    { width: 375, height: 667 },
    { width: 1280, height: 800 },
  ]) {
    it(`shows the first bank whole, above “Continue”, without scrolling at ${viewport.width}x${viewport.height}`, async () => {
      const created = await createPayment({ flowType: 'HOSTED_PAGES' });
      const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport });
      await page.goto(created.redirectUrl as string);
      const banks = page.getByRole('listbox', { name: 'Choose your bank' }).getByRole('option');
      await banks.first().waitFor();

      const { bank, buttonTop } = await firstScreen(page);
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
      expect(bank).not.toBeNull();
      expect(bank?.y ?? -1).toBeGreaterThanOrEqual(0);
      // Not under the pinned button, and not cut by a scroll box inside the page.
      expect((bank?.y ?? 0) + (bank?.height ?? 0)).toBeLessThanOrEqual(buttonTop);
      expect(
        await banks.first().evaluate((element) => element.closest('.picker__results')?.scrollHeight ?? 0),
      ).toBe(
        await banks.first().evaluate((element) => element.closest('.picker__results')?.clientHeight ?? -1),
      );
      // The first bank is hit by a tap at its centre (nothing lies over it).
      const hit = await page.evaluate(
        ({ x, y }) => document.elementFromPoint(x, y)?.closest('[role="option"]')?.id ?? null,
        { x: (bank?.x ?? 0) + (bank?.width ?? 0) / 2, y: (bank?.y ?? 0) + (bank?.height ?? 0) / 2 },
      );
      expect(hit).toBe(await banks.first().getAttribute('id'));

      // The last bank, reached with the arrow keys, is scrolled clear of the pinned button.
      await banks.first().focus();
      await page.keyboard.press('End');
      const last = await page.locator('[role="option"]:focus').boundingBox();
      const after = await firstScreen(page);
      expect((last?.y ?? 0) + (last?.height ?? 0)).toBeLessThanOrEqual(after.buttonTop);

      await expectNoSidewaysScroll(page);
      await expectAccessible(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      if (viewport.width === 375) await screenshot(page, 'hosted-first-screen');
      assertNoConsoleErrors();
    });
  }
});
