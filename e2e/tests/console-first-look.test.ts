import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, expectAccessible, launchBrowser, openCustomerPage, PHONE } from './support/browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/** A signed-out visitor's session check answers 401, which the browser logs. */
const SIGNED_OUT_CHECK = /status of 401/;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('a new merchant’s first look (%s)', (_label, viewport) => {
  it('`/` leads to the dashboard’s sign-in, with a favicon, and never paints a blank page', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    // Hold the session check back: what shows meanwhile is the console's frame, not nothing.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/trpc/dashboard.account.session**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${inject('baseUrl')}/`);
    await page.locator('header').getByText('Payments dashboard').waitFor();
    expect(await page.locator('#root').innerText()).toContain('Payments dashboard');
    release();

    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await expectAccessible(page);

    const icon = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(icon).toBe('/favicon.svg');
    const answer = await page.request.get(`${inject('baseUrl')}${icon}`);
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-type']).toContain('image/svg+xml');
    assertNoConsoleErrors();
  });
});
