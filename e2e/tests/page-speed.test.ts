import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openCustomerPage } from './support/browser.ts';
import { ARTIFACTS_DIR } from './support/e2e-config.ts';
import { createPayment } from './support/merchant-api.ts';

/** Sums layout shifts from the first paint on (the CLS of the page's load). */
const OBSERVE_LAYOUT_SHIFTS = () => {
  const state = window as unknown as { __cls: number };
  state.__cls = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<
      PerformanceEntry & { value: number; hadRecentInput: boolean }
    >) {
      if (!entry.hadRecentInput) state.__cls += entry.value;
    }
  }).observe({ type: 'layout-shift', buffered: true });
};

interface Measure {
  /** ms from navigation start until the page's first action can be used (data loaded, rendered). */
  interactiveMs: number;
  cls: number;
}

const measure = async (page: Page, url: string, ready: () => Promise<void>): Promise<Measure> => {
  await page.addInitScript(OBSERVE_LAYOUT_SHIFTS);
  await page.goto(url);
  await ready();
  const interactiveMs = await page.evaluate(() => Math.round(performance.now()));
  await page.waitForTimeout(300); // late shifts would show up here
  const cls = await page.evaluate(() => (window as unknown as { __cls: number }).__cls);
  return { interactiveMs, cls: Math.round(cls * 1000) / 1000 };
};

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('page speed on localhost (cold browser context)', () => {
  it('both pages become usable quickly and do not shift when data arrives', async () => {
    const hosted = await createPayment({ flowType: 'HOSTED_PAGES' });
    const bank = await createPayment();
    const results: Record<string, Measure> = {};

    for (const viewport of [
      { width: 375, height: 812 },
      { width: 1280, height: 800 },
    ]) {
      const first = await openCustomerPage(browser, { viewport });
      results[`hosted-${viewport.width}`] = await measure(first.page, hosted.redirectUrl as string, () =>
        first.page.getByRole('listbox').getByRole('option').first().waitFor(),
      );
      const second = await openCustomerPage(browser, { viewport });
      results[`mock-bank-${viewport.width}`] = await measure(second.page, bank.redirectUrl as string, () =>
        second.page.getByRole('button', { name: 'Log in' }).waitFor(),
      );
    }

    writeFileSync(path.join(ARTIFACTS_DIR, 'page-speed.json'), `${JSON.stringify(results, null, 2)}\n`);
    for (const [name, result] of Object.entries(results)) {
      expect(result.cls, `${name} layout shift`).toBeLessThan(0.1);
      expect(result.interactiveMs, `${name} time to interactive`).toBeLessThan(3000);
    }
  });
});
