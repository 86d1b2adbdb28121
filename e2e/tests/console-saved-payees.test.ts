import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import { expectNoSidewaysScroll, openSection, signUp } from './support/dashboard-steps.ts';

/**
 * What a merchant sets once (issue 34 item 10): saved payee accounts in Settings, refused as the
 * API refuses a bad sort code or IBAN (nothing stored), and chosen in New payment.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 400|status of 401/;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('saved payee accounts (%s)', (label, viewport) => {
  it('a bad sort code and a bad IBAN are refused and not kept; a good account is chosen in New payment', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Payee Shop ${label}`,
      email: `payee-${label}-${Date.now()}@shop.example`,
      password: 'a long enough passphrase',
    });
    await openSection(page, 'Settings');
    const section = page.getByRole('region', { name: 'Saved payee accounts' });
    await section.getByText('No saved payees yet.').waitFor();

    await section.getByLabel('Label').fill('Main account');
    await section.getByLabel('Account holder name').fill('Payee Shop Ltd');
    await section.getByLabel('Sort code', { exact: true }).fill('04-00');
    await section.getByLabel('Account number', { exact: true }).fill('12345678');
    await section.getByRole('button', { name: 'Save payee account' }).click();
    await section.locator('.field__error').first().waitFor();
    expect(await section.locator('.field__error').first().textContent()).toMatch(/sort code|6 digits/i);
    await expectAccessible(page);
    await screenshot(page, `console-payee-refused-${label}`);

    await section.getByLabel('International (IBAN)').check();
    await section.getByLabel('IBAN', { exact: true }).fill('DE89 3704 0044 0532 0130 01');
    await section.getByRole('button', { name: 'Save payee account' }).click();
    await section.getByText('must be a valid IBAN (country, length and checksum)').waitFor();
    expect(await section.getByText('No saved payees yet.').count()).toBe(1);

    await section.getByLabel('UK account').check();
    await section.getByLabel('Sort code', { exact: true }).fill('04-00-04');
    await section.getByRole('button', { name: 'Save payee account' }).click();
    await section.getByText('Saved “Main account”.').waitFor();
    await section.getByText('04-00-04 12345678').waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await screenshot(page, `console-payees-${label}`);

    await openSection(page, 'Payments');
    await page.getByRole('link', { name: 'New payment' }).first().click();
    await page.getByLabel('Saved payee').selectOption({ label: 'Main account' });
    expect(await page.getByLabel('Payee name').inputValue()).toBe('Payee Shop Ltd');
    expect(await page.getByLabel('Sort code', { exact: true }).inputValue()).toBe('040004');
    await page.getByLabel('Amount').fill('3.20');
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Create payment and link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment of £3.20 created' }).waitFor();
    assertNoConsoleErrors();
  });
});
