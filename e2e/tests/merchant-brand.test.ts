import type { Browser, Page } from 'playwright-core';
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
import { expectNoSidewaysScroll, signIn } from './support/dashboard-steps.ts';
import { MERCHANT_ORIGIN } from './support/merchant-api.ts';
import { type RunningServer, startServer } from './support/server-process.ts';

/**
 * Hosted pages in the merchant's brand, for verified organizations only (issue 34 item 14): the
 * merchant sets its brand in Settings (bad input refused, nothing stored), its customers see the
 * service's look and its name as plain text until the operator runs `org:verify`, then its logo,
 * display name and accent on the hosted picker and its mark on the Mock bank page.
 * Its own server: the operator's CLI is part of the walk.
 */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40" width="120" height="40">
  <rect width="120" height="40" rx="8" fill="#7a1f5c"/>
  <circle cx="20" cy="20" r="10" fill="#ffffff"/>
  <path d="M40 26h70" stroke="#ffffff" stroke-width="6"/>
</svg>`;
const ACCENT = '#7a1f5c';
const ACCENT_RGB = 'rgb(122, 31, 92)';
const EMAIL = `owner-${Date.now()}@brand.example`;
const PASSWORD = 'a long enough passphrase';

let browser: Browser;
let server: RunningServer;
let organizationId = '';
let apiKey = '';

beforeAll(async () => {
  server = await startServer();
  const org = await server.admin(['org:create', '--name', 'Brand Shop Ltd']);
  organizationId = String(org.organizationId ?? org.id);
  await server.admin(['user:create', '--org', organizationId, '--email', EMAIL, '--password', PASSWORD]);
  apiKey = String(
    (await server.admin(['key:create', '--org', organizationId, '--permissions', 'read,write'])).apiKey,
  );
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
}, 60_000);

async function hostedPayment(): Promise<string> {
  const response = await fetch(`${server.baseUrl}/api/payments`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      toAccount: { accountName: 'Brand Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
      amount: { value: '9.99', currency: 'GBP' },
      flowType: 'HOSTED_PAGES',
      redirectUrl: `${MERCHANT_ORIGIN}/return`,
    }),
  });
  const body = (await response.json()) as { data: { redirectUrl: string } };
  return body.data.redirectUrl;
}

/** Accessible and whole at both widths, with screenshots of both. */
async function fineAtBothWidths(page: Page, name: string) {
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
  }
  await screenshot(page, name);
  await page.setViewportSize(PHONE);
}

const brandForm = (page: Page) => page.getByTestId('brand-form');

describe('a merchant’s brand on its customer pages', () => {
  it('Settings > Brand: saved; bad input refused with a clear message and nothing stored', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport: PHONE,
      expectedErrors: /status of (401|400)/,
    });
    await page.goto(`${server.baseUrl}/dashboard/sign-in`);
    await signIn(page, { email: EMAIL, password: PASSWORD });
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Brand', level: 2 }).waitFor();
    expect(await page.getByTestId('brand-status').textContent()).toMatch(
      /once the service’s operator has verified/,
    );

    const form = brandForm(page);
    await form.getByLabel('Display name (optional)').fill('Corner Café');
    await form
      .getByLabel(/^Logo/)
      .setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: Buffer.from(LOGO) });
    await form.getByLabel(/^Accent colour/).fill(ACCENT);
    await form.getByRole('button', { name: 'Save brand' }).click();
    await page.getByText('Brand saved.').waitFor();
    await fineAtBothWidths(page, 'brand-settings');

    // 5 MB: told at once, nothing sent.
    await form
      .getByLabel(/^Logo/)
      .setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(5 * 1024 * 1024) });
    await form.getByText('The file is 5.0 MB: a logo may be at most 64 KB. Nothing was saved.').waitFor();
    // An SVG with a script, and a colour with no contrast: the server says why.
    await form.getByLabel(/^Logo/).setInputFiles({
      name: 'evil.svg',
      mimeType: 'image/svg+xml',
      buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    });
    await form.getByRole('button', { name: 'Save brand' }).click();
    await form.getByText(/is an SVG with a script, which is not allowed/).waitFor();
    await form
      .getByLabel(/^Logo/)
      .setInputFiles({ name: 'not-an-image.png', mimeType: 'image/png', buffer: Buffer.from('hello') });
    await form.getByRole('button', { name: 'Save brand' }).click();
    await form.getByText(/is not a PNG or SVG image/).waitFor();
    await form.getByLabel(/^Logo/).setInputFiles([]);
    await form.getByLabel(/^Accent colour/).fill('#ffd700');
    await form.getByRole('button', { name: 'Save brand' }).click();
    await form.getByText(/contrast of 1\.\d:1 against the page's background/).waitFor();
    await expectAccessible(page);

    // Nothing of that was stored: a fresh page shows the saved brand.
    await page.reload();
    await brandForm(page).waitFor();
    expect(
      await brandForm(page)
        .getByLabel(/^Accent colour/)
        .inputValue(),
    ).toBe(ACCENT);
    expect(await brandForm(page).getByLabel('Display name (optional)').inputValue()).toBe('Corner Café');
    assertNoConsoleErrors();
  });

  it('unverified: the hosted picker shows the service’s look and the organization’s name as plain text', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport: PHONE });
    await page.goto(await hostedPayment());
    await page.getByRole('listbox', { name: 'Choose your bank' }).getByRole('option').first().waitFor();
    expect(await page.locator('.topbar__brand').textContent()).toBe('Brand Shop Ltd');
    expect(await page.getByTestId('merchant-logo').count()).toBe(0);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pay Brand Shop Ltd');
    await page.getByRole('listbox', { name: 'Choose your bank' }).getByRole('option').first().click();
    const button = page.getByRole('button', { name: /^Continue to/ });
    expect(await button.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(
      'rgb(11, 87, 208)',
    );
    await fineAtBothWidths(page, 'brand-unverified-picker');
    assertNoConsoleErrors();
  });

  it('verified by the operator: its logo, display name and accent on the picker, its mark at the Mock bank', async () => {
    expect(await server.admin(['org:verify', '--org', organizationId])).toMatchObject({ verified: true });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport: PHONE });
    await page.goto(await hostedPayment());
    await page.getByRole('listbox', { name: 'Choose your bank' }).getByRole('option').first().waitFor();
    expect(await page.locator('.topbar__brand').textContent()).toBe('Corner Café');
    const logo = page.getByTestId('merchant-logo');
    await expect
      .poll(() => logo.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth))
      .toBeGreaterThan(0);
    expect(new URL((await logo.getAttribute('src')) ?? '', server.baseUrl).origin).toBe(server.baseUrl);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pay Corner Café');
    await page.getByRole('option', { name: /Thames/ }).click();
    const button = page.getByRole('button', { name: /^Continue to/ });
    expect(await button.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe(ACCENT_RGB);
    await fineAtBothWidths(page, 'brand-verified-picker');

    await button.click();
    await page.waitForURL('**/mock-bank/**');
    await logInAtMockBank(page);
    await page.getByRole('heading', { level: 1, name: 'Approve payment to Corner Café' }).waitFor();
    const mark = page.getByTestId('merchant-mark');
    expect(await mark.textContent()).toBe('Corner Café');
    expect(await mark.locator('img').count()).toBe(1);
    await fineAtBothWidths(page, 'brand-verified-mock-bank');
    assertNoConsoleErrors();
  });
});
