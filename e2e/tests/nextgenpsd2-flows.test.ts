import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DESKTOP,
  expectAccessible,
  launchBrowser,
  openCustomerPage,
  PHONE,
  screenshot,
} from './support/browser.ts';
import { returnedToMerchant } from './support/customer-steps.ts';
import { EU_BANK_ID, type EuSetup, startEuSetup } from './support/eu-bank.ts';
import { MERCHANT_ORIGIN } from './support/merchant-api.ts';

/**
 * The `nextgenpsd2` provider (Berlin Group NextGenPSD2 1.3.11) in Chromium, on a clean setup:
 * its own sandbox bank (Sandbox Bank EU is its second face) and its own service that finds the
 * bank's xs2a-client.json in the bank's data folder, an organization approved for nextgenpsd2 by
 * the operator CLI. The customer follows our link to the bank's SCA page, signs in and decides,
 * comes back through our callback to the merchant; the service polls the bank by itself. After
 * each flow the test reads the payment at the bank as the TPP and checks the bank's answers
 * against the official Berlin Group document.
 */
let browser: Browser;
let setup: EuSetup;

beforeAll(async () => {
  setup = await startEuSetup('E2E Euro Shop GmbH');
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
}, 60_000);

async function request(method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${setup.server.baseUrl}${urlPath}`, {
    method,
    headers: {
      'x-api-key': setup.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const envelope = (await response.json()) as {
    success: boolean;
    data?: unknown;
    error?: { code?: string; details?: Array<{ field: string; message: string }> };
  };
  return { status: response.status, ...envelope };
}

async function api<T>(method: string, urlPath: string, body?: unknown): Promise<T> {
  const answer = await request(method, urlPath, body);
  if (!answer.success)
    throw new Error(`${method} ${urlPath} -> ${answer.status} ${JSON.stringify(answer.error)}`);
  return answer.data as T;
}

interface Payment {
  paymentId: string;
  status: string;
  redirectUrl?: string | null;
  isoStatus: { code: string; reason?: { code: string } };
  error?: { code: string };
}

const PAYEE = { accountName: 'Kaffeehaus Berlin GmbH', iban: 'DE89370400440532013000' };

const createBody = (overrides: Record<string, unknown> = {}) => ({
  toAccount: PAYEE,
  amount: { value: '12.50', currency: 'EUR' },
  reference: 'E2E nextgenpsd2',
  provider: 'nextgenpsd2',
  bankId: EU_BANK_ID,
  redirectUrl: `${MERCHANT_ORIGIN}/return`,
  ...overrides,
});

const create = (overrides: Record<string, unknown> = {}) =>
  api<Payment>('POST', '/api/payments', createBody(overrides));

const listed = async () =>
  (await api<{ payments: Payment[]; total: number }>('GET', '/api/payments?limit=100')).payments;

/**
 * The merchant's list until the payment in it is finished (the service polls the bank by itself
 * from the customer's return: 1 s, 2 s, 4 s...); never a read of the payment itself.
 */
async function finishedInList(paymentId: string): Promise<Payment> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const payment = (await listed()).find((item) => item.paymentId === paymentId);
    if (payment && ['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED'].includes(payment.status)) return payment;
    if (Date.now() > deadline) throw new Error(`payment still ${payment?.status ?? 'not listed'}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Our callback's answer (the "Returning to ..." page) as the browser gets it, kept for the test.
 * It refreshes to the merchant at once, and Chromium drops a document's body once it navigates
 * away, while holding that navigation makes every read of the page wait on it: so the answer is
 * taken by a route, which Playwright does not run for a redirect's next request. The bank's
 * decision ends in a 303 to our callback; that one answer is given to the browser as a page that
 * goes on to the same address at once, so the callback is a navigation of its own, fetched by
 * the route and given to the browser unchanged.
 */
async function onwardPageKept(page: Page): Promise<{ answer?: { status: number; html: string } }> {
  const kept: { answer?: { status: number; html: string } } = {};
  const callback = `${setup.server.baseUrl}/providers/nextgenpsd2/callback?`;
  await page.route(
    (url) => url.href.startsWith(setup.bankPagesUrl),
    async (route) => {
      if (!route.request().postData()?.includes('action=')) return route.fallback();
      const response = await route.fetch({ maxRedirects: 0 });
      const location = response.headers().location ?? '';
      if (!location.startsWith(callback)) return route.fulfill({ response });
      const attribute = location.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
      await route.fulfill({
        contentType: 'text/html; charset=utf-8',
        body: `<!doctype html><meta http-equiv="refresh" content="0; url=${attribute}">`,
      });
    },
  );
  await page.route(
    (url) => url.href.startsWith(callback),
    async (route) => {
      const response = await route.fetch();
      kept.answer = { status: response.status(), html: await response.text() };
      await route.fulfill({ response, body: kept.answer.html });
    },
  );
  return kept;
}

const BANK_SCA_PAGE = /\/xs2a\/sca\/(sca-[0-9a-f]{32})$/;

/**
 * From our link to the bank's page: the link is ours and sends the browser to the bank's SCA
 * page (the authorisation id in its address). Returns that id.
 */
async function openOurLink(page: Page, link: string): Promise<string> {
  expect(link.startsWith(`${setup.server.baseUrl}/providers/nextgenpsd2/authorize/`)).toBe(true);
  await page.goto(link);
  return bankPageReached(page);
}

async function bankPageReached(page: Page): Promise<string> {
  await page.waitForURL((url) => url.href.startsWith(setup.bankPagesUrl) && BANK_SCA_PAGE.test(url.pathname));
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  return BANK_SCA_PAGE.exec(new URL(page.url()).pathname)?.[1] as string;
}

/** At the bank's pages: sign in (prefilled), choose the account, approve or reject. */
async function decideAtBank(
  page: Page,
  decision: 'approve' | 'reject',
  options: { account?: RegExp; check?: (page: Page) => Promise<void> } = {},
) {
  expect(await page.getByLabel('Username').inputValue()).toBe('lena.schmidt');
  await options.check?.(page);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Approve this payment' }).waitFor();
  if (decision === 'reject') {
    await page.getByRole('button', { name: 'Reject' }).click();
    return;
  }
  await page
    .getByRole('group', { name: 'Pay from' })
    .getByLabel(options.account ?? /Current account/)
    .check();
  await options.check?.(page);
  await page.getByRole('button', { name: 'Approve payment' }).click();
}

const SCT = '/v1/payments/sepa-credit-transfers';

/** The payment at the bank, read as the TPP, each answer valid by the Berlin Group document. */
async function atTheBank(authorisationId: string) {
  const bankPaymentId = await setup.bankPaymentOf(authorisationId);
  const status = await setup.tpp(
    'GET',
    `${SCT}/${bankPaymentId}/status`,
    'paymentInitiationStatusResponse-200_json',
  );
  const sca = await setup.tpp(
    'GET',
    `${SCT}/${bankPaymentId}/authorisations/${authorisationId}`,
    'scaStatusResponse',
  );
  expect(status.status).toBe(200);
  expect(sca.status).toBe(200);
  return {
    ...(status.body as { transactionStatus: string; fundsAvailable?: boolean; psuMessage?: string }),
    scaStatus: (sca.body as { scaStatus: string }).scaStatus,
  };
}

/**
 * Our "Returning to <shop>" page as the browser got it, shown at our origin without its
 * immediate refresh (the only change), so axe and the screenshot see it as a customer does for
 * that moment, with our stylesheet; its link goes on to the merchant.
 */
async function checkOnwardPage(html: string, name: string) {
  expect(html).toMatch(/<meta http-equiv="refresh" content="0; url=https:\/\/merchant\.example\/return\?/);
  const { page } = await openCustomerPage(browser, { viewport: name === 'phone' ? PHONE : DESKTOP });
  const still = html.replace(/<meta http-equiv="refresh"[^>]*>/, '');
  await page.route(`${setup.server.baseUrl}/e2e-onward-page`, (route) =>
    route.fulfill({ contentType: 'text/html; charset=utf-8', body: still }),
  );
  await page.goto(`${setup.server.baseUrl}/e2e-onward-page`);
  await page.getByRole('heading', { name: 'Returning to E2E Euro Shop GmbH' }).waitFor();
  expect(await page.getByTestId('page-payment').innerText()).toBe('€12.50 to Kaffeehaus Berlin GmbH');
  await expectAccessible(page);
  if (name === 'phone') await screenshot(page, 'nextgenpsd2-returning');
  await page.getByRole('link', { name: 'Continue to the shop' }).click();
  await returnedToMerchant(page);
  await page.context().close();
}

describe('a create Sandbox Bank EU cannot take', () => {
  it.each([
    ['a currency other than EUR', 'amount.currency', { amount: { value: '12.50', currency: 'GBP' } }],
    [
      'a UK account',
      'toAccount.sortCode',
      { toAccount: { accountName: 'E2E Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' } },
    ],
    ['three decimals', 'amount.value', { amount: { value: '12.345', currency: 'EUR' } }],
  ])('%s: 400 VALIDATION_FAILED naming %s, nothing stored', async (_what, field, overrides) => {
    const before = (await api<{ total: number }>('GET', '/api/payments')).total;
    const answer = await request('POST', '/api/payments', createBody(overrides));
    expect(answer.status).toBe(400);
    expect(answer.error?.code).toBe('VALIDATION_FAILED');
    expect(answer.error?.details?.map((detail) => detail.field)).toEqual([field]);
    expect((await api<{ total: number }>('GET', '/api/payments')).total).toBe(before);
  });
});

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('nextgenpsd2 at Sandbox Bank EU (%s)', (name, viewport) => {
  it('API_ONLY: approve at the bank -> back at the merchant -> COMPLETED / ACSC in the list', async ({
    onTestFailed,
  }) => {
    // Where a failure (a timeout above all) stopped, with the time since the start: a timed-out
    // test otherwise names no step.
    const started = Date.now();
    let stage = 'create';
    const reached = (next: string) => {
      stage = `${next} (${Date.now() - started} ms)`;
    };
    let page: Page | undefined;
    onTestFailed(() => {
      console.error(`nextgenpsd2 API_ONLY (${name}) stopped at: ${stage}; page at ${page?.url()}`);
    });
    const payment = await create();
    reached('open the customer page');
    const customer = await openCustomerPage(browser, { viewport });
    page = customer.page;
    const { assertNoConsoleErrors } = customer;
    // Our page between the bank and the merchant ("Returning to ..."): it moves on by itself at
    // once, so its HTML is taken as it passes (onwardPageKept) and checked in a page of its own below.
    const onward = await onwardPageKept(page);
    reached('our link to the bank');
    const authorisationId = await openOurLink(page, payment.redirectUrl as string);
    let step = 0;
    reached('decide at the bank');
    await decideAtBank(page, 'approve', {
      check: async (bankPage) => {
        if (step === 1) {
          const summary = await bankPage.locator('dl').innerText();
          expect(summary).toContain('€12.50');
          expect(summary).toContain('Kaffeehaus Berlin GmbH');
          expect(summary).toContain('DE89 3704 0044 0532 0130 00');
        }
        await expectAccessible(bankPage);
        if (name === 'phone') await screenshot(bankPage, `nextgenpsd2-bank-${step ? 'approve' : 'sign-in'}`);
        step += 1;
      },
    });

    reached('back at the merchant');
    const returned = page;
    const query = await returnedToMerchant(returned).catch(async (error) => {
      throw new Error(`${error}\nat ${returned.url()}\n${(await returned.innerText('body')).slice(0, 1500)}`);
    });
    expect(query.get('paymentId')).toBe(payment.paymentId);
    expect(query.get('status')).toBeTruthy();
    expect(onward.answer?.status).toBe(200);

    reached('finished in the list');
    const inList = await finishedInList(payment.paymentId);
    expect(inList.status).toBe('COMPLETED');
    expect(inList.isoStatus.code).toBe('ACSC');
    const read = await api<Payment>('GET', `/api/payments/${payment.paymentId}`);
    expect(read).toMatchObject({ status: 'COMPLETED', isoStatus: { code: 'ACSC' } });

    reached('read at the bank');
    expect(await atTheBank(authorisationId)).toMatchObject({
      transactionStatus: 'ACSC',
      fundsAvailable: true,
      scaStatus: 'finalised',
    });
    assertNoConsoleErrors();
    await page.context().close();
    reached('the onward page checked');
    await checkOnwardPage(onward.answer?.html ?? '', name);
  });

  it('rejected at the bank -> FAILED / RJCT / CUST', async () => {
    const payment = await create({ amount: { value: '9.99', currency: 'EUR' } });
    const { page } = await openCustomerPage(browser, { viewport });
    const authorisationId = await openOurLink(page, payment.redirectUrl as string);
    await decideAtBank(page, 'reject');
    const query = await returnedToMerchant(page);
    expect(query.get('paymentId')).toBe(payment.paymentId);
    expect(query.get('status')).toBe('FAILED');
    const failed = await finishedInList(payment.paymentId);
    expect(failed.status).toBe('FAILED');
    expect(failed.isoStatus).toMatchObject({ code: 'RJCT', reason: { code: 'CUST' } });
    const bank = await atTheBank(authorisationId);
    expect(bank).toMatchObject({ transactionStatus: 'RJCT', scaStatus: 'failed' });
    expect(bank.fundsAvailable).toBeUndefined();
    await page.context().close();
  });

  it('more than the €50 account holds -> FAILED / RJCT / AM04', async () => {
    const payment = await create({ amount: { value: '80.00', currency: 'EUR' } });
    const { page } = await openCustomerPage(browser, { viewport });
    const authorisationId = await openOurLink(page, payment.redirectUrl as string);
    await decideAtBank(page, 'approve', { account: /Pocket account/ });
    await returnedToMerchant(page);
    const failed = await finishedInList(payment.paymentId);
    expect(failed.status).toBe('FAILED');
    expect(failed.isoStatus).toMatchObject({ code: 'RJCT', reason: { code: 'AM04' } });
    expect(failed.error?.code).toBe('AM04');
    expect(await atTheBank(authorisationId)).toMatchObject({
      transactionStatus: 'RJCT',
      fundsAvailable: false,
      scaStatus: 'finalised',
    });
    await page.context().close();
  });

  it('HOSTED_PAGES: pick Sandbox Bank EU, approve -> COMPLETED', async () => {
    const payment = await create({ flowType: 'HOSTED_PAGES', bankId: undefined });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport });
    await page.goto(payment.redirectUrl as string);
    // The picker opens on the United Kingdom, where nextgenpsd2 has no bank ("No banks available
    // here"): the customer switches to Germany (see the report on hosted-page.ts's countries).
    await page.getByLabel('Country').selectOption({ label: 'Germany' });
    const option = page.getByRole('option', { name: /Sandbox Bank EU/ });
    await option.waitFor();
    await expectAccessible(page);
    if (name === 'phone') await screenshot(page, 'nextgenpsd2-hosted-picker');
    await option.click();
    await page.getByRole('button', { name: /^Continue to Sandbox Bank EU/ }).click();
    const authorisationId = await bankPageReached(page);
    await decideAtBank(page, 'approve');
    expect((await returnedToMerchant(page)).get('paymentId')).toBe(payment.paymentId);
    expect(await finishedInList(payment.paymentId)).toMatchObject({
      status: 'COMPLETED',
      isoStatus: { code: 'ACSC' },
    });
    expect(await atTheBank(authorisationId)).toMatchObject({ transactionStatus: 'ACSC' });
    assertNoConsoleErrors();
    await page.context().close();
  });

  it('EMBEDDED_HOSTED_PAGES with the bank given: confirm, approve -> COMPLETED', async () => {
    const payment = await create({ flowType: 'EMBEDDED_HOSTED_PAGES' });
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport });
    await page.goto(payment.redirectUrl as string);
    const confirm = page.getByRole('button', { name: /^Confirm and continue to Sandbox Bank EU/ });
    await confirm.waitFor();
    expect(await page.getByRole('listbox').count()).toBe(0);
    await expectAccessible(page);
    if (name === 'phone') await screenshot(page, 'nextgenpsd2-hosted-confirm');
    await confirm.click();
    const authorisationId = await bankPageReached(page);
    await decideAtBank(page, 'approve');
    expect((await returnedToMerchant(page)).get('paymentId')).toBe(payment.paymentId);
    expect(await finishedInList(payment.paymentId)).toMatchObject({
      status: 'COMPLETED',
      isoStatus: { code: 'ACSC' },
    });
    expect(await atTheBank(authorisationId)).toMatchObject({ transactionStatus: 'ACSC' });
    assertNoConsoleErrors();
    await page.context().close();
  });
});
