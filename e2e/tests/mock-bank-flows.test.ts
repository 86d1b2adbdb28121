import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';
import { logInAtMockBank, pickCustomSeconds, returnedToMerchant } from './support/customer-steps.ts';
import { createPayment, getPayment, pollPayment } from './support/merchant-api.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('API_ONLY: the Mock bank page', () => {
  it('approve with the default scenario: back at the merchant with COMPLETED, and GET agrees', async () => {
    const created = await createPayment();
    expect(created.status).toBe('AUTHORIZING');
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);

    await page.goto(created.redirectUrl as string);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(await page.getByLabel('Customer ID').inputValue()).not.toBe('');
    await expectAccessible(page);
    await screenshot(page, 'mock-bank-login');

    await logInAtMockBank(page);
    expect(await page.getByRole('radio', { name: /Instant/ }).isChecked()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'mock-bank-decision');

    await page.getByRole('button', { name: 'Approve payment' }).click();
    const query = await returnedToMerchant(page);
    expect(query.get('paymentId')).toBe(created.paymentId);
    expect(query.get('status')).toBe('COMPLETED');
    expect(query.get('order')).toBe('1');

    const payment = await getPayment(created.paymentId);
    expect(payment.status).toBe('COMPLETED');
    expect(payment.isoStatus.code).toBe('ACSC');
    expect(payment.completedAt).toBeTruthy();

    // Revisiting a decided link shows the outcome, not the buttons again.
    await page.goto(created.redirectUrl as string);
    await page.getByRole('heading', { name: 'Payment completed' }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve payment' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Log in' }).count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'mock-bank-revisited');
    assertNoConsoleErrors();
  });

  it('reject with AM04: FAILED, RJCT with reason AM04, error set', async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    await page.goto(created.redirectUrl as string);
    await logInAtMockBank(page);
    await page.getByLabel('Reason for rejecting').selectOption('AM04');
    await page.getByRole('button', { name: 'Reject' }).click();

    const query = await returnedToMerchant(page);
    expect(query.get('status')).toBe('FAILED');
    const payment = await getPayment(created.paymentId);
    expect(payment.status).toBe('FAILED');
    expect(payment.isoStatus.code).toBe('RJCT');
    expect(payment.isoStatus.reason?.code).toBe('AM04');
    expect(payment.error).toBeTruthy();
    assertNoConsoleErrors();
  });

  it('a custom scenario picked on the page overrides the request: AUTHORIZED at return, COMPLETED on time', async () => {
    const seconds = 3;
    const created = await createPayment({ mockBank: { preset: 'slow' } });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    await page.goto(created.redirectUrl as string);
    await logInAtMockBank(page);
    expect(await page.getByRole('radio', { name: /Slow/ }).isChecked()).toBe(true);
    await pickCustomSeconds(page, seconds);
    await page.getByRole('button', { name: 'Approve payment' }).click();

    const query = await returnedToMerchant(page);
    expect(query.get('status')).toBe('AUTHORIZED');
    const payment = await pollPayment(
      created.paymentId,
      (p) => p.status === 'COMPLETED',
      (seconds + 5) * 1000,
    );
    expect(payment.status).toBe('COMPLETED');
    // On time: the slow preset would take 10 minutes; the page's 3 seconds won.
    const at = (status: string) =>
      Date.parse(payment.statusHistory?.find((entry) => entry.status === status)?.timestamp ?? '');
    const took = at('COMPLETED') - at('AUTHORIZED');
    expect(took).toBeGreaterThanOrEqual(seconds * 1000 - 500);
    expect(took).toBeLessThanOrEqual(seconds * 1000 + 2500);
    assertNoConsoleErrors();
  });

  it('without a return URL, a result page says what happened', async () => {
    const created = await createPayment({ redirectUrl: undefined });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    await page.goto(created.redirectUrl as string);
    await logInAtMockBank(page);
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('heading', { name: 'Payment rejected' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'mock-bank-result-no-return-url');
    assertNoConsoleErrors();
  });
});
