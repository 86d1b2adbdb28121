import type { Browser } from 'playwright-core';
import { toString as qrSvg } from 'qrcode';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import { logInAtMockBank } from './support/customer-steps.ts';
import { expectNoSidewaysScroll, signUp } from './support/dashboard-steps.ts';

/**
 * Taking a payment at the counter (issue 34 item 5): New payment, the QR code on the first screen
 * and large enough to scan from a second phone; the customer pays on their own phone; the card
 * turns "Paid" with the amount by itself, without a reload.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('a payment at the counter (%s)', (label, viewport) => {
  it('New payment: the QR code on the first screen; the customer pays; the card turns “Paid” by itself', async () => {
    const merchant = await openCustomerPage(browser, { viewport, expectedErrors: /status of 401/ });
    const { page } = merchant;
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Counter ${label}`,
      email: `counter-${label}-${Date.now()}@market.example`,
      password: 'a long enough passphrase',
    });
    await page.goto(`${inject('baseUrl')}/dashboard/payments/new`);
    await page.getByRole('heading', { level: 1, name: 'New payment' }).waitFor();
    await page.getByLabel('Amount').fill('7.80');
    await page.getByLabel('Sort code', { exact: true }).fill('04-00-04');
    await page.getByLabel('Account number', { exact: true }).fill('12345678');
    await page.getByRole('button', { name: 'Create payment and link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment of £7.80 created' }).waitFor();

    // The code: the link itself, whole on the first screen, at least 240 px wide.
    const link = await page.getByLabel('Customer link').inputValue();
    const qr = page.getByRole('img', { name: 'QR code of the link to pay £7.80' });
    await qr.waitFor();
    const expected = await qrSvg(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(await qr.getAttribute('src')).toBe(
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(expected)}`,
    );
    const box = await qr.boundingBox();
    expect(box?.width ?? 0).toBeGreaterThanOrEqual(240);
    expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(viewport.height);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `counter-qr-${label}`);

    // The customer, on a second phone, opens the code's link and pays at the Mock bank (instant).
    const customer = await openCustomerPage(browser, { viewport: PHONE });
    await customer.page.goto(link);
    await customer.page.getByRole('option', { name: /Thames/ }).click();
    await customer.page.getByRole('button', { name: /^Continue to Thames/ }).click();
    await customer.page.waitForURL('**/mock-bank/**');
    await logInAtMockBank(customer.page);
    await customer.page.getByRole('button', { name: 'Approve payment' }).click();

    // The merchant's card changes by itself.
    await page.getByRole('heading', { level: 1, name: 'Paid £7.80' }).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('counter-result').textContent()).toContain('£7.80');
    expect(await qr.count()).toBe(0);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `counter-paid-${label}`);
    merchant.assertNoConsoleErrors();
    customer.assertNoConsoleErrors();
  });
});

describe('a counter payment that fails', () => {
  it('the card says so by itself, with the amount and a way to ask again', async () => {
    const merchant = await openCustomerPage(browser, { viewport: PHONE, expectedErrors: /status of 401/ });
    const { page } = merchant;
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: 'Counter refused',
      email: `counter-refused-${Date.now()}@market.example`,
      password: 'a long enough passphrase',
    });
    await page.goto(`${inject('baseUrl')}/dashboard/payments/new`);
    await page.getByLabel('Amount').fill('3.10');
    await page.getByLabel('Sort code', { exact: true }).fill('04-00-04');
    await page.getByLabel('Account number', { exact: true }).fill('12345678');
    await page.getByRole('button', { name: 'Create payment and link' }).click();
    const link = await page.getByLabel('Customer link').inputValue();

    const customer = await openCustomerPage(browser, { viewport: PHONE });
    await customer.page.goto(link);
    await customer.page.getByRole('option', { name: /Thames/ }).click();
    await customer.page.getByRole('button', { name: /^Continue to Thames/ }).click();
    await customer.page.waitForURL('**/mock-bank/**');
    await logInAtMockBank(customer.page);
    await customer.page.getByRole('button', { name: 'Reject', exact: true }).click();

    await page.getByRole('heading', { level: 1, name: 'Payment failed: £3.10' }).waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'New payment' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'counter-failed');
    merchant.assertNoConsoleErrors();
  });
});

describe('a counter payment left waiting', () => {
  it('its code never shows a dead link: a fresh one replaces it before the first expires', async () => {
    const merchant = await openCustomerPage(browser, { viewport: PHONE, expectedErrors: /status of 401/ });
    const { page } = merchant;
    await page.clock.install();
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: 'Counter waiting',
      email: `counter-waiting-${Date.now()}@market.example`,
      password: 'a long enough passphrase',
    });
    await page.goto(`${inject('baseUrl')}/dashboard/payments/new`);
    await page.getByLabel('Amount').fill('5.00');
    await page.getByLabel('Sort code', { exact: true }).fill('04-00-04');
    await page.getByLabel('Account number', { exact: true }).fill('12345678');
    await page.getByRole('button', { name: 'Create payment and link' }).click();
    const first = await page.getByLabel('Customer link').inputValue();
    // The server's clock is real: a link made in the same second would be the same token (its
    // expiry is in whole seconds), so let a real second pass before the browser's jumps ahead.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The hosted link lasts an hour: 56 minutes on (the browser's clock), the card shows another.
    await page.clock.fastForward('56:00');
    await expect
      .poll(() => page.getByLabel('Customer link').inputValue(), { timeout: 10_000 })
      .not.toBe(first);
    // Its token (payload: p = payment, e = expiry in Unix seconds) names the same payment, later.
    const claims = (url: string) =>
      JSON.parse(Buffer.from(url.split('/').at(-1)?.split('.')[1] ?? '', 'base64url').toString()) as {
        p: string;
        e: number;
      };
    const fresh = claims(await page.getByLabel('Customer link').inputValue());
    expect(fresh.p).toBe(claims(first).p);
    expect(fresh.e).toBeGreaterThan(claims(first).e);
    merchant.assertNoConsoleErrors();
  });
});
