import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';
import { logInAtMockBank, returnedToMerchant } from './support/customer-steps.ts';
import { createPayment, getPayment } from './support/merchant-api.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('hosted payment page', () => {
  it('HOSTED_PAGES: search, pick a bank with the keyboard, approve -> COMPLETED with bankId', async () => {
    const created = await createPayment({ flowType: 'HOSTED_PAGES' });
    expect(created.status).toBe('PENDING');
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);

    await page.goto(created.redirectUrl as string);
    const banks = page.getByRole('listbox', { name: 'Choose your bank' }).getByRole('option');
    await banks.first().waitFor();
    await expectAccessible(page);
    await screenshot(page, 'hosted-picker');

    // Country switch, then back.
    await page.getByLabel('Country').selectOption('IE');
    await page.getByRole('option', { name: /Liffey/ }).waitFor();
    await page.getByLabel('Country').selectOption('GB');

    // Search as you type, then arrows + Enter.
    await page.getByLabel('Search banks').pressSequentially('thames', { delay: 40 });
    await expect.poll(() => banks.count(), { timeout: 5000 }).toBe(1);
    await page.getByLabel('Search banks').press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await banks.first().getAttribute('aria-selected')).toBe('true');
    await expectAccessible(page);
    await screenshot(page, 'hosted-picker-selected');

    await page.getByRole('button', { name: /^Continue to Thames/ }).click();
    await page.waitForURL('**/mock-bank/**');

    // Back to the hosted link before deciding: it sends the customer on to the bank again
    // (with a freshly signed bank link).
    await page.goto(created.redirectUrl as string);
    await page.getByRole('link', { name: /^Continue to Thames/ }).click();
    await page.waitForURL('**/mock-bank/**');

    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAtMockBank(page);
    await page.getByRole('button', { name: 'Approve payment' }).click();
    const query = await returnedToMerchant(page);
    expect(query.get('status')).toBe('COMPLETED');

    const payment = await getPayment(created.paymentId);
    expect(payment.status).toBe('COMPLETED');
    expect(payment.bankId).toBe('mock-gb-thames');
    assertNoConsoleErrors();
  });

  it('EMBEDDED_HOSTED_PAGES with a bankId: confirm, approve -> COMPLETED', async () => {
    const created = await createPayment({
      flowType: 'EMBEDDED_HOSTED_PAGES',
      bankId: 'mock-ie-liffey',
      toAccount: { accountName: 'E2E Shop Ltd', iban: 'IE29AIBK93115212345678' },
      amount: { value: '20.00', currency: 'EUR' },
    });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);

    await page.goto(created.redirectUrl as string);
    const confirm = page.getByRole('button', { name: /^Confirm and continue to Liffey/ });
    await confirm.waitFor();
    expect(await page.getByRole('listbox').count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, 'hosted-embedded-confirm');

    await confirm.click();
    await page.waitForURL('**/mock-bank/**');
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAtMockBank(page);
    await page.getByRole('button', { name: 'Approve payment' }).click();
    expect((await returnedToMerchant(page)).get('status')).toBe('COMPLETED');

    const payment = await getPayment(created.paymentId);
    expect(payment.status).toBe('COMPLETED');
    expect(payment.bankId).toBe('mock-ie-liffey');
    assertNoConsoleErrors();
  });
});
