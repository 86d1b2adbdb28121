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

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 401/;

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('cancel and reject ask first, then say what happened (%s)', (label, viewport) => {
  it('Escape keeps the payment; confirming cancels or rejects it, and a status message says so', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Florist ${label}`,
      email: `florist-${label}-${Date.now()}@shop.example`,
      password: 'a long enough passphrase',
    });
    await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
    await openSection(page, 'API keys');
    const apiKey = await createApiKey(page, 'Till');
    const create = async (reference: string) => {
      const created = await callApi(apiKey, 'POST', '/payments', { ...PAYMENT_BODY, reference });
      expect(created.status).toBe(201);
      return String((created.body.data as { paymentId: string }).paymentId);
    };

    // Cancel: Escape changes nothing, and the focus returns to the button.
    const toCancel = await create('CANCEL-ME');
    await page.goto(`${inject('baseUrl')}/dashboard/payments/${toCancel}`);
    const cancelButton = page.getByRole('button', { name: 'Cancel payment' });
    await cancelButton.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Cancel the payment of £42.00 to Dashboard Shop Ltd?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(toCancel);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep payment');
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
    if (label === 'phone') await screenshot(page, 'console-confirm-cancel');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel payment');
    expect((await callApi(apiKey, 'GET', `/payments/${toCancel}`)).body.data).toMatchObject({
      status: 'AUTHORIZING',
    });

    await cancelButton.click();
    await dialog.getByRole('button', { name: 'Cancel payment' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Cancelled £42.00 to Dashboard Shop Ltd. It is now Cancelled.' })
      .waitFor();
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Cancelled' }).waitFor();
    await expectAccessible(page);
    if (label === 'phone') await screenshot(page, 'console-cancelled');
    expect((await callApi(apiKey, 'GET', `/payments/${toCancel}`)).body.data).toMatchObject({
      status: 'CANCELLED',
    });

    // Reject as the customer, with a reason.
    const toReject = await create('REJECT-ME');
    await page.goto(`${inject('baseUrl')}/dashboard/payments/${toReject}`);
    await page.getByLabel('Reason for rejecting').selectOption('AM04');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    const rejecting = page.getByRole('dialog', {
      name: 'Reject the payment of £42.00 to Dashboard Shop Ltd?',
    });
    await rejecting.waitFor();
    expect(await rejecting.textContent()).toContain('AM04');
    await expectAccessible(page);
    await rejecting.getByRole('button', { name: 'Reject payment' }).click();
    await page.getByRole('status').filter({ hasText: 'Rejected £42.00 to Dashboard Shop Ltd' }).waitFor();
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Failed' }).waitFor();
    expect((await callApi(apiKey, 'GET', `/payments/${toReject}`)).body.data).toMatchObject({
      status: 'FAILED',
    });
    assertNoConsoleErrors();
  });
});
