import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, launchBrowser, openCustomerPage, PHONE, screenshot } from './support/browser.ts';
import { returnedToMerchant } from './support/customer-steps.ts';
import { MERCHANT_ORIGIN } from './support/merchant-api.ts';
import { OBIE_BANK_ID, type ObieSetup, startObieSetup } from './support/obie-bank.ts';

/**
 * The `obie` provider in Chromium, on a clean setup: its own sandbox bank (started as `npm start`
 * would, own embedded Postgres and keys in a temp folder) and its own service configured from
 * the bank's client.json, an organization approved for obie by the operator CLI. The customer
 * signs in and decides at the bank's real pages, comes back through our callback to the merchant.
 */
let browser: Browser;
let setup: ObieSetup | undefined;

beforeAll(async () => {
  setup = await startObieSetup('E2E Open Banking Shop');
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
}, 60_000);

async function api<T>(method: string, urlPath: string, body?: unknown): Promise<T> {
  const response = await fetch(`${setup?.server.baseUrl}${urlPath}`, {
    method,
    headers: {
      'x-api-key': setup?.apiKey ?? '',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { success: boolean; data?: T; error?: unknown };
  if (!envelope.success)
    throw new Error(`${method} ${urlPath} -> ${response.status} ${JSON.stringify(envelope.error)}`);
  return envelope.data as T;
}

interface Payment {
  paymentId: string;
  status: string;
  redirectUrl?: string | null;
  isoStatus: { code: string; reason?: { code: string } };
  error?: { code: string };
}

const create = (overrides: Record<string, unknown> = {}) =>
  api<Payment>('POST', '/api/payments', {
    toAccount: { accountName: 'E2E Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
    amount: { value: '12.50', currency: 'GBP' },
    reference: 'E2E obie',
    provider: 'obie',
    bankId: OBIE_BANK_ID,
    redirectUrl: `${MERCHANT_ORIGIN}/return`,
    ...overrides,
  });

/** The merchant's waiting read until the payment finishes (the bank's steps take about a second). */
async function finished(paymentId: string): Promise<Payment> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const payment = await api<Payment>('GET', `/api/payments/${paymentId}`);
    if (['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'].includes(payment.status)) return payment;
    if (Date.now() > deadline) throw new Error(`payment still ${payment.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** At the bank's pages: sign in (prefilled), choose the account, approve or reject. */
async function decideAtBank(page: Page, decision: 'approve' | 'reject', account = /Current account/) {
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Approve this payment' }).waitFor();
  if (decision === 'reject') {
    await page.getByRole('button', { name: 'Reject' }).click();
    return;
  }
  await page.getByRole('group', { name: 'Pay from' }).getByLabel(account).check();
  await page.getByRole('button', { name: 'Approve payment' }).click();
}

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('obie at the sandbox bank (%s)', (name, viewport) => {
  it('API_ONLY: approve at the bank -> back at the merchant -> COMPLETED', async () => {
    const payment = await create();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport });
    await page.goto(payment.redirectUrl as string);
    await screenshot(page, `obie-bank-sign-in-${name}`);
    await decideAtBank(page, 'approve');
    const query = await returnedToMerchant(page).catch(async (error) => {
      throw new Error(`${error}\nat ${page.url()}\n${(await page.innerText('body')).slice(0, 1500)}`);
    });
    expect(query.get('paymentId')).toBe(payment.paymentId);
    expect((await finished(payment.paymentId)).status).toBe('COMPLETED');
    assertNoConsoleErrors();
  });

  it('HOSTED_PAGES: pick the sandbox bank, approve -> COMPLETED', async () => {
    const payment = await create({ flowType: 'HOSTED_PAGES', bankId: undefined });
    const { page } = await openCustomerPage(browser, { viewport });
    await page.goto(payment.redirectUrl as string);
    await page.getByRole('option', { name: /Sandbox Bank/ }).click();
    await page.getByRole('button', { name: /^Continue to/ }).click();
    await decideAtBank(page, 'approve');
    await returnedToMerchant(page);
    expect((await finished(payment.paymentId)).status).toBe('COMPLETED');
  });

  it('rejected at the bank -> FAILED / RJCT / CUST', async () => {
    const payment = await create();
    const { page } = await openCustomerPage(browser, { viewport });
    await page.goto(payment.redirectUrl as string);
    await decideAtBank(page, 'reject');
    const query = await returnedToMerchant(page);
    expect(query.get('status')).toBe('FAILED');
    const failed = await finished(payment.paymentId);
    expect(failed.isoStatus).toMatchObject({ code: 'RJCT', reason: { code: 'CUST' } });
  });

  it('more than the balance -> FAILED / RJCT / AM04', async () => {
    const payment = await create({ amount: { value: '300.00', currency: 'GBP' } });
    const { page } = await openCustomerPage(browser, { viewport });
    await page.goto(payment.redirectUrl as string);
    await decideAtBank(page, 'approve', /Savings account/);
    await returnedToMerchant(page);
    const failed = await finished(payment.paymentId);
    expect(failed.isoStatus).toMatchObject({ code: 'RJCT', reason: { code: 'AM04' } });
    expect(failed.error?.code).toBe('AM04');
  });
});
