import type { Browser, Page } from 'playwright-core';
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
import { createApiKey, expectNoSidewaysScroll, openSection, signUp } from './support/dashboard-steps.ts';
import { createPayment } from './support/merchant-api.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 401/;

/** Each check a dashboard page must pass at both widths. */
async function pageIsFine(page: Page, name: string, label: string) {
  await expectAccessible(page);
  await expectNoSidewaysScroll(page);
  if (label === 'phone') await screenshot(page, `console-${name}`);
}

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('a merchant takes a payment without code (%s)', (label, viewport) => {
  it('empty list leads on; New payment gives a link and its QR code, which opens the customer’s page; re-send', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Market stall ${label}`,
      email: `stall-${label}-${Date.now()}@market.example`,
      password: 'a long enough passphrase',
    });
    await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
    await pageIsFine(page, 'quick-start', label);

    // A bad filter in the address: back to the defaults, with a notice.
    await page.goto(`${inject('baseUrl')}/dashboard/payments?status=NOPE&page=0`);
    await page.getByText('The address asked for status “NOPE” and page “0”').waitFor();
    expect(new URL(page.url()).search).toBe('');
    // The empty list offers the two ways to make a payment.
    await page.getByRole('heading', { name: 'No payments yet' }).waitFor();
    expect(await page.getByRole('link', { name: 'Open the quick start' }).count()).toBe(1);
    await pageIsFine(page, 'payments-empty', label);

    await page.getByRole('link', { name: 'New payment' }).last().click();
    await page.getByRole('heading', { level: 1, name: 'New payment' }).waitFor();
    await pageIsFine(page, 'new-payment', label);
    await page.getByLabel('Amount').fill('18.40');
    await page.getByLabel('Sort code', { exact: true }).fill('12-34-56');
    await page.getByLabel('Account number', { exact: true }).fill('12345678');
    await page.getByLabel('Reference (optional)').fill('Stall order 7');
    await page.getByRole('button', { name: 'Create payment and link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment of £18.40 created' }).waitFor();
    const link = await page.getByLabel('Customer link').inputValue();
    expect(link).toMatch(new RegExp(`^${inject('baseUrl')}/pay/`));

    // The QR code is the link itself.
    const qr = page.getByRole('img', { name: 'QR code of the link to pay £18.40' });
    await qr.waitFor();
    const expected = await qrSvg(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    expect(await qr.getAttribute('src')).toBe(
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(expected)}`,
    );
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByText('Link copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await pageIsFine(page, 'new-payment-link', label);

    // The customer opens it (a second page): the hosted bank picker for this payment.
    const [customer] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('link', { name: 'Open the customer’s page' }).click(),
    ]);
    await customer.getByRole('heading', { level: 1, name: `Pay Market stall ${label}` }).waitFor();
    expect(await customer.getByText('£18.40').count()).toBeGreaterThan(0);
    await customer.close();

    // The list now has it, as stacked rows on a phone.
    await openSection(page, 'Payments');
    await page.getByRole('link', { name: '£18.40' }).waitFor();
    await pageIsFine(page, 'payments', label);
    await page.getByRole('link', { name: '£18.40' }).click();
    await page.getByText('Stall order 7').waitFor();
    await pageIsFine(page, 'payment', label);

    // Re-send (issue 23 item 5): a fresh link for the customer who lost theirs, opened in a second page.
    await page.getByRole('button', { name: 'New customer link' }).click();
    await page.getByText(/^Made a new customer link for £18\.40 to /).waitFor();
    const actions = page.getByRole('region', { name: 'Actions' });
    const fresh = await actions.getByLabel('Customer link').inputValue();
    expect(fresh).toMatch(new RegExp(`^${inject('baseUrl')}/pay/`));
    expect(fresh).not.toBe(link);
    await actions.getByRole('img', { name: 'QR code of the link to pay £18.40' }).waitFor();
    await pageIsFine(page, 'payment-new-link', label);
    const [resent] = await Promise.all([
      page.context().waitForEvent('page'),
      actions.getByRole('link', { name: 'Open the customer’s page' }).click(),
    ]);
    await resent.getByRole('heading', { level: 1, name: `Pay Market stall ${label}` }).waitFor();
    expect(await resent.getByText('£18.40').count()).toBeGreaterThan(0);
    await resent.close();

    // The API keys page with a key in its table: no sideways scroll on a phone either.
    await openSection(page, 'API keys');
    await createApiKey(page, 'Till with a rather long descriptive name');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('row', { name: /Till with a rather long/ }).waitFor();
    await pageIsFine(page, 'api-keys', label);

    await openSection(page, 'Overview');
    await pageIsFine(page, 'overview', label);
    await openSection(page, 'Settings');
    await pageIsFine(page, 'settings', label);
    assertNoConsoleErrors();
  });
});

describe('the hosted bank picker on a small phone', () => {
  it('shows “Continue” without scrolling at 375x667', async () => {
    const created = await createPayment({ flowType: 'HOSTED_PAGES' });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport: { width: 375, height: 667 },
    });
    await page.goto(created.redirectUrl as string);
    const banks = page.getByRole('listbox', { name: 'Choose your bank' }).getByRole('option');
    await banks.first().waitFor();
    const button = page.getByRole('button', { name: /continue/i });
    const box = await button.boundingBox();
    expect(box).not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(667);
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    // Picking a bank with a tap, the button names it, still in view.
    await banks.first().click();
    const chosen = page.getByRole('button', { name: /^Continue to / });
    const after = await chosen.boundingBox();
    expect((after?.y ?? 0) + (after?.height ?? 0)).toBeLessThanOrEqual(667);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    assertNoConsoleErrors();
  });
});
