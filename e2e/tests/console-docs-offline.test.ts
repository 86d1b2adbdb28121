import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('/docs on a machine without internet', () => {
  it('asks nothing of another host, has no AI or MCP buttons, and shows a filled curl sample with no key in it', async () => {
    const { page } = await openCustomerPage(browser, { viewport: { width: 1280, height: 900 } });
    const ours = new URL(inject('baseUrl')).host;
    const elsewhere: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol.startsWith('http') && url.host !== ours) {
        elsewhere.push(url.href);
        return route.abort();
      }
      return route.continue();
    });
    await page.goto(`${inject('baseUrl')}/docs#tag/payments/POST/payments`);
    const sample = page.locator('pre, code').filter({ hasText: '--data' }).first();
    await sample.waitFor({ timeout: 20_000 });
    const curl = (await sample.textContent()) ?? '';
    expect(curl).toMatch(/^curl http:\/\/[^ ]+\/api\/payments/);
    expect(curl).toContain('"value": "12.50"');
    expect(curl).toContain('"sortCode": "12-34-56"');
    expect(curl).toContain('x-api-key: YOUR_SECRET_TOKEN');
    expect(curl).not.toMatch(/pis_/);

    const text = await page.evaluate(() => document.body.innerText);
    expect(text).not.toMatch(/Ask AI|MCP/);
    // The key box is there, chosen and empty.
    expect(text).toContain('x-api-key');
    const values = await page
      .locator('input')
      .evaluateAll((inputs) =>
        inputs
          .filter((input) => (input as HTMLInputElement).type !== 'checkbox')
          .map((input) => (input as HTMLInputElement).value),
      );
    expect(values.every((value) => value === '')).toBe(true);
    await screenshot(page, 'console-docs');
    expect(elsewhere).toEqual([]);
  });
});
