import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectAccessible, launchBrowser, openCustomerPage, screenshot } from './support/browser.ts';
import { logInAtMockBank } from './support/customer-steps.ts';
import { expiredLink, tamperedLink } from './support/links.ts';
import { cancelPayment, createPayment } from './support/merchant-api.ts';

/** The browser logs the error status of a refused call; these tests provoke exactly that. */
const REFUSED_CALL = /Failed to load resource/;

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('every unhappy path has a page', () => {
  it('expired hosted page link: says so, with its 1 hour lifetime', async () => {
    const created = await createPayment({ flowType: 'HOSTED_PAGES' });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { expectedErrors: REFUSED_CALL });
    await page.goto(expiredLink('hosted', created.paymentId));
    await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
    expect(await page.getByText(/valid for 1 hour/).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'expired-hosted-link');
    assertNoConsoleErrors();
  });

  it('expired Mock bank link: says so, with its 30 minutes lifetime', async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { expectedErrors: REFUSED_CALL });
    await page.goto(expiredLink('mock-bank', created.paymentId));
    await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
    expect(await page.getByText(/valid for 30 minutes/).count()).toBe(1);
    await screenshot(page, 'expired-mock-bank-link');
    assertNoConsoleErrors();
  });

  it('tampered links: not valid, on both pages', async () => {
    const hosted = await createPayment({ flowType: 'HOSTED_PAGES' });
    const bank = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { expectedErrors: REFUSED_CALL });
    await page.goto(tamperedLink(hosted.redirectUrl as string));
    await page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'tampered-hosted-link');
    await page.goto(tamperedLink(bank.redirectUrl as string));
    await page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
    await screenshot(page, 'tampered-mock-bank-link');
    assertNoConsoleErrors();
  });

  it('cancelled by the merchant while the customer looks: the decision shows the cancellation', async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { expectedErrors: REFUSED_CALL });
    await page.goto(created.redirectUrl as string);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await logInAtMockBank(page);
    await cancelPayment(created.paymentId);
    await page.getByRole('button', { name: 'Approve payment' }).click();
    await page.getByRole('heading', { name: 'Payment cancelled' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'mock-bank-cancelled-meanwhile');
    assertNoConsoleErrors();
  });

  it('a finished payment on the hosted page shows its outcome', async () => {
    const created = await createPayment({ flowType: 'HOSTED_PAGES' });
    await cancelPayment(created.paymentId);
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    await page.goto(created.redirectUrl as string);
    await page.getByRole('heading', { name: 'Payment cancelled' }).waitFor();
    expect(await page.getByRole('link', { name: /^Return to/ }).count()).toBe(1);
    await screenshot(page, 'hosted-already-finished');
    assertNoConsoleErrors();
  });

  it('server unreachable: a page with retry that recovers', async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { expectedErrors: REFUSED_CALL });
    await page.route(`${inject('baseUrl')}/trpc/**`, (route) => route.abort('connectionrefused'));
    await page.goto(created.redirectUrl as string);
    await page.getByRole('heading', { name: 'We can’t reach the payment service' }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'server-unreachable');
    await page.unroute(`${inject('baseUrl')}/trpc/**`);
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    assertNoConsoleErrors();
  });
});
