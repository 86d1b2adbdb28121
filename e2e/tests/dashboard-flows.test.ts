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
import {
  callApi,
  createApiKey,
  expectNoSidewaysScroll,
  openSection,
  PAYMENT_BODY,
  signUp,
} from './support/dashboard-steps.ts';
import { MERCHANT_ORIGIN } from './support/merchant-api.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/**
 * A signed-out visitor's first look asks `session()`, which answers 401: the browser logs that
 * response as a console error. Nothing else may.
 */
const SIGNED_OUT_CHECK = /status of 401/;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('the first ten minutes on the dashboard (%s)', (label, viewport) => {
  it('sign up, create a key, pay with it, approve from the dashboard, see COMPLETED, revoke the key', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    // screenshot() shoots every page at 375 and 1280 px, so one of the two runs is enough.
    const shot = async (name: string) => {
      if (label === 'phone') await screenshot(page, `dashboard-${name}`);
    };

    // Sign up: a new organization, signed in, landing on the quick start.
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await page.getByRole('button', { name: 'Create account' }).waitFor();
    await expectAccessible(page);
    await shot('sign-up');
    const email = `owner-${label}-${Date.now()}@bakery.example`;
    await signUp(page, { businessName: `Bakery ${label}`, email, password: 'a long enough passphrase' });
    await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await shot('quick-start');

    // Create a key: shown once.
    await openSection(page, 'API keys');
    await expectAccessible(page);
    const apiKey = await createApiKey(page, 'Checkout server');
    expect(apiKey).toMatch(/^pis_/);
    await expectAccessible(page);
    await shot('api-key-created');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByText(apiKey).count()).toBe(0);

    // Use it from "the merchant's server": a plain HTTP request.
    const created = await callApi(apiKey, 'POST', '/payments', PAYMENT_BODY);
    expect(created.status).toBe(201);
    const paymentId = String((created.body.data as { paymentId: string }).paymentId);

    // See it in the list, open it.
    await openSection(page, 'Payments');
    const row = page.getByRole('row', { name: /£42\.00/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Awaiting customer');
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await shot('payments');
    await row.getByRole('link', { name: '£42.00' }).click();
    await page.getByText(paymentId).waitFor();
    await expectAccessible(page);
    await shot('payment-waiting');

    // Approve from its page (instant scenario): COMPLETED, with the whole timeline.
    // It asks first, in a modal dialog that names the payment and its amount.
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve the payment of £42.00 to Dashboard Shop Ltd?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(paymentId);
    await expectAccessible(page);
    await shot('payment-confirm-approve');
    await dialog.getByRole('button', { name: 'Approve payment' }).click();
    await page.getByRole('status').filter({ hasText: 'Status: Completed' }).waitFor({ timeout: 20_000 });
    await page.getByRole('status').filter({ hasText: 'Approved £42.00 to Dashboard Shop Ltd' }).waitFor();
    const timeline = page.getByRole('list', { name: 'Status history' });
    const steps = await timeline.getByRole('listitem').allTextContents();
    expect(steps[0]).toContain('Pending');
    expect(steps.at(-1)).toContain('Completed');
    expect(steps.at(-1)).toContain('ACSC');
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await shot('payment-completed');

    // The overview counts it and draws it.
    await openSection(page, 'Overview');
    await page.getByRole('figure', { name: /Payment volume/ }).waitFor();
    expect(await page.getByRole('link', { name: '1 Completed' }).count()).toBe(1);
    await page.locator('.chart__plot canvas').first().waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await shot('overview');

    // Settings: customers may only be sent back to the shop's own origin from now on.
    await openSection(page, 'Settings');
    await page.getByLabel('Origins, one a line').fill(MERCHANT_ORIGIN);
    await page.getByRole('button', { name: 'Save return origins' }).click();
    await page.getByText(`Now: 1 origin, ${MERCHANT_ORIGIN}.`).waitFor();
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    await shot('settings');
    const elsewhere = await callApi(apiKey, 'POST', '/payments', {
      ...PAYMENT_BODY,
      redirectUrl: 'https://elsewhere.example/return',
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((await callApi(apiKey, 'POST', '/payments', PAYMENT_BODY)).status).toBe(201);

    // Revoke the key: the next request with it answers 401 Invalid API key.
    await openSection(page, 'API keys');
    // By keyboard: the confirmation takes the focus, the next Tab is its button.
    await page.getByRole('button', { name: 'Revoke Checkout server' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: /^Revoke “Checkout server”/ }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toMatch(
      /^Revoke “Checkout server”/,
    );
    await expectAccessible(page);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Revoke key');
    await page.keyboard.press('Enter');
    await page
      .getByRole('row', { name: /Checkout server/ })
      .filter({ hasText: 'revoked' })
      .waitFor();
    await shot('api-key-revoked');
    const refused = await callApi(apiKey, 'GET', `/payments/${paymentId}`);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ success: false, error: { message: 'Invalid API key' } });

    // Sign out: back to sign-in, and the dashboard is closed again.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await expectAccessible(page);
    await shot('sign-in');
    await page.goto(`${inject('baseUrl')}/dashboard/payments`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');

    // Signing in again brings the merchant back to where they were going.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough passphrase');
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Payments' }).waitFor();

    // The sign-out page asks first.
    await page.goto(`${inject('baseUrl')}/dashboard/sign-out`);
    await page.getByRole('heading', { level: 1, name: `Sign out of Bakery ${label}?` }).waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Sign out' }).last().click();
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    await expectAccessible(page);
    assertNoConsoleErrors();
  });
});
