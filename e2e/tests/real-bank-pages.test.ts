import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_FAULTS, writeFaults } from '../../sandbox-bank/src/faults.ts';
import { signLinkToken } from '../../server/src/links/link-token.ts';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import { expectNoSidewaysScroll } from './support/dashboard-steps.ts';
import { MERCHANT_ORIGIN } from './support/merchant-api.ts';
import { OBIE_BANK_ID, type ObieSetup, startObieSetup } from './support/obie-bank.ts';

/**
 * The service's own pages for a real bank (`obie`), issue 34 item 4: the hosted pages' look, the
 * merchant's name and amount where known, "Try again" where it can work, the way back to the shop.
 */
const SHOP = 'E2E Real Bank Shop';
let browser: Browser;
let setup: ObieSetup;

beforeAll(async () => {
  setup = await startObieSetup(SHOP);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
}, 60_000);

/**
 * Until the bank answers as its faults file now says: it re-reads the file each second, and its
 * customer pages and its API read the same switch (an outage: every page but /assets answers 503).
 */
const bankOutage = (outage: boolean) =>
  expect
    .poll(async () => (await fetch(`${setup.bankPagesUrl}/`)).status === 503, {
      timeout: 10_000,
      interval: 100,
    })
    .toBe(outage);

async function api<T>(method: string, urlPath: string, body?: unknown): Promise<T> {
  const response = await fetch(`${setup.server.baseUrl}${urlPath}`, {
    method,
    headers: {
      'x-api-key': setup.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as { success: boolean; data?: T; error?: unknown };
  if (!envelope.success)
    throw new Error(`${method} ${urlPath} -> ${response.status} ${JSON.stringify(envelope.error)}`);
  return envelope.data as T;
}

const create = () =>
  api<{ paymentId: string; redirectUrl: string }>('POST', '/api/payments', {
    toAccount: { accountName: 'Real Bank Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
    amount: { value: '23.40', currency: 'GBP' },
    reference: 'E2E-PAGES',
    provider: 'obie',
    bankId: OBIE_BANK_ID,
    redirectUrl: `${MERCHANT_ORIGIN}/return?order=pages`,
  });

/** Styled as the hosted pages (their stylesheet applied), accessible and whole at both widths. */
async function expectStyled(page: Page, name: string) {
  expect(await page.locator('link[rel="stylesheet"]').count()).toBe(1);
  // The stylesheet applied: the brand bar is the hosted pages' dark bar.
  expect(await page.locator('.topbar').evaluate((bar) => getComputedStyle(bar).backgroundColor)).toBe(
    'rgb(27, 31, 41)',
  );
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);
  }
  await screenshot(page, `real-bank-${name}`);
}

describe('real-bank customer pages', () => {
  it('the bank cannot be reached: merchant, amount, "Try again" that works once the bank is back, the way back', async () => {
    const payment = await create();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      expectedErrors: /status of 502/,
    });
    writeFaults(setup.bankDir, { ...NO_FAULTS, outage: true });
    try {
      await bankOutage(true);
      await page.goto(payment.redirectUrl);
      await page.getByRole('heading', { name: 'The bank could not be reached' }).waitFor();
      expect(await page.locator('.topbar__brand').textContent()).toBe(SHOP);
      expect(await page.getByTestId('page-payment').textContent()).toBe('£23.40 to Real Bank Shop Ltd');
      const back = new URL(
        (await page.getByRole('link', { name: `Return to ${SHOP}` }).getAttribute('href')) ?? '',
      );
      expect(back.searchParams.get('paymentId')).toBe(payment.paymentId);
      await expectStyled(page, 'bank-unreachable');
    } finally {
      writeFaults(setup.bankDir, NO_FAULTS);
    }
    await bankOutage(false);
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assertNoConsoleErrors();
  });

  it('an invalid link: the service’s look, no payment named, no "Try again"', async () => {
    const payment = await create();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      expectedErrors: /status of 400/,
    });
    await page.goto(`${payment.redirectUrl.slice(0, -2)}${payment.redirectUrl.endsWith('AA') ? 'BB' : 'AA'}`);
    await page.getByRole('heading', { name: 'This link is not valid' }).waitFor();
    expect(await page.getByRole('link', { name: 'Try again' }).count()).toBe(0);
    expect(await page.locator('body').textContent()).not.toContain('23.40');
    await expectStyled(page, 'invalid-link');
    assertNoConsoleErrors();
  });

  it('an expired link: what it was for and the way back to the shop', async () => {
    const payment = await create();
    const token = signLinkToken(setup.server.linkSigningSecret, {
      paymentId: payment.paymentId,
      purpose: 'bank',
      expiresAt: new Date(Date.now() - 60_000),
    });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      expectedErrors: /status of 410/,
    });
    await page.goto(`${setup.server.baseUrl}/providers/obie/authorize/${token}`);
    await page.getByRole('heading', { name: 'This link has expired' }).waitFor();
    expect(await page.getByTestId('page-payment').textContent()).toBe('£23.40 to Real Bank Shop Ltd');
    await expectStyled(page, 'expired-link');
    await page.getByRole('link', { name: `Return to ${SHOP}` }).click();
    await page.waitForURL(`${MERCHANT_ORIGIN}/**`);
    assertNoConsoleErrors();
  });

  it('a finished payment: its outcome, the merchant and the way back', async () => {
    const payment = await create();
    await api('POST', `/api/payments/${payment.paymentId}/cancel`);
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      expectedErrors: /status of 409/,
    });
    await page.goto(payment.redirectUrl);
    await page.getByRole('heading', { name: 'This payment is cancelled' }).waitFor();
    expect(await page.locator('.topbar__brand').textContent()).toBe(SHOP);
    await expectStyled(page, 'finished');
    const back = new URL(
      (await page.getByRole('link', { name: `Return to ${SHOP}` }).getAttribute('href')) ?? '',
    );
    expect(back.searchParams.get('status')).toBe('CANCELLED');
    assertNoConsoleErrors();
  });

  it('a callback with garbage: a styled page, nothing changed, nothing named', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      expectedErrors: /status of 400/,
    });
    await page.goto(
      `${setup.server.baseUrl}/providers/obie/callback?response=garbage&state=%3Cb%3Ex%3C%2Fb%3E`,
    );
    await page.getByRole('heading', { name: 'This link cannot be used' }).waitFor();
    expect(await page.locator('b').count()).toBe(0);
    await expectStyled(page, 'callback-garbage');
    assertNoConsoleErrors();
  });
});
