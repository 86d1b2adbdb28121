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
import { expectNoSidewaysScroll, openSection, signUp } from './support/dashboard-steps.ts';
import { type ObieSetup, startObieSetup } from './support/obie-bank.ts';

/**
 * New payment with `obie` (issue 34 item 3), on a clean setup: a merchant signs up, reads the
 * organization id in Settings (item 10), the operator approves it for obie with that id, and
 * New payment then offers UK Open Banking with the one bank it reaches taken, never the API's
 * words. The customer approves at the sandbox bank's own pages; the dashboard shows it Completed.
 */
/** The sign-up page asks for a session first: the browser logs that 401 (as the other console tests accept). */
const SIGNED_OUT_CHECK = /status of 401/;
let browser: Browser;
let setup: ObieSetup;

beforeAll(async () => {
  setup = await startObieSetup('E2E Console Obie Operator Org');
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await setup?.stop();
}, 60_000);

async function pageIsFine(page: Page, name: string) {
  await expectAccessible(page);
  await expectNoSidewaysScroll(page);
  await screenshot(page, `console-obie-${name}`);
}

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('New payment with obie (%s)', (label, viewport) => {
  it('approved by the organization id from Settings; the only bank is taken; paid at the bank', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    await page.goto(`${setup.server.baseUrl}/dashboard/sign-up`);
    await signUp(page, {
      businessName: `Open Banking Café ${label}`,
      email: `obie-${label}-${Date.now()}@cafe.example`,
      password: 'a long enough passphrase',
    });

    // Settings shows the id the operator needs, with Copy.
    await openSection(page, 'Settings');
    const organizationId = (await page.getByTestId('organization-id').textContent()) ?? '';
    expect(organizationId).toMatch(/^org_/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy organization id' }).click();
    await page.getByText('Organization id copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(organizationId);
    await setup.server.admin(['org:approve-provider', '--org', organizationId, '--provider', 'obie']);

    await openSection(page, 'Payments');
    await page.getByRole('link', { name: 'New payment' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'New payment' }).waitFor();
    await page.getByLabel('Provider', { exact: true }).selectOption({ label: 'UK Open Banking' });
    await page.getByLabel(/Straight to the bank/).check();
    await page.getByText('Bank: Sandbox Bank').waitFor();
    // No Mock bank scenario for a real bank.
    expect(await page.getByText('Practice scenario').count()).toBe(0);
    await page.getByLabel('Amount').fill('7.25');
    await page.getByLabel('Sort code', { exact: true }).fill('04-00-04');
    await page.getByLabel('Account number', { exact: true }).fill('12345678');
    await pageIsFine(page, `new-payment-${label}`);
    await page.getByRole('button', { name: 'Create payment and link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment of £7.25 created' }).waitFor();
    const body = await page.innerText('body');
    expect(body).not.toMatch(/bankId|GET \/api\/banks/);
    await pageIsFine(page, `link-${label}`);

    // The customer's link opens the bank's own sign-in; approve there.
    const link = await page.getByLabel('Customer link').inputValue();
    const customer = await page.context().newPage();
    await customer.goto(link);
    await customer.getByRole('button', { name: 'Sign in' }).click();
    await customer.getByRole('heading', { name: 'Approve this payment' }).waitFor();
    await customer
      .getByRole('group', { name: 'Pay from' })
      .getByLabel(/Current account/)
      .check();
    await customer.getByRole('button', { name: 'Approve payment' }).click();
    await customer.waitForURL((url) => !url.href.includes('/authorize'), { timeout: 30_000 });
    await customer.close();

    await openSection(page, 'Payments');
    await page.getByRole('link', { name: '£7.25' }).click();
    await page.getByText('Completed').first().waitFor({ timeout: 30_000 });
    assertNoConsoleErrors();
  });
});
