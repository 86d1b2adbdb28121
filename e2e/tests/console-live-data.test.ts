import type { Browser, Page } from 'playwright-core';
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
import { linkIn, mailTo } from './support/mail-inbox.ts';

/**
 * Live data without dead ends (issue 34 item 9): a new merchant on Live data is told at once, on
 * New payment and on the API keys page, why nothing live can be done yet and what to ask the
 * operator (with the organization id to give), instead of a form that can only be refused.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 401/;

async function pageIsFine(page: Page, name: string) {
  await expectAccessible(page);
  await expectNoSidewaysScroll(page);
  await screenshot(page, `console-live-${name}`);
}

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('live data’s first screens (%s)', (label, viewport) => {
  it('New payment and API keys say why nothing live can be done yet, and whom to ask', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    const email = `live-${label}-${Date.now()}@shop.example`;
    await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
    await signUp(page, { businessName: `Live Shop ${label}`, email, password: 'a long enough passphrase' });
    await page.goto(linkIn(await mailTo(email, 'Confirm your email address')));
    await page.getByRole('button', { name: 'Confirm email address' }).click();
    await page.getByText(`${email} is confirmed.`).waitFor();
    await page.getByRole('link', { name: 'Go to the dashboard' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).waitFor();

    await openSection(page, 'Settings');
    const organizationId = (await page.getByTestId('organization-id').textContent()) ?? '';
    await page.getByRole('button', { name: 'Live data' }).click();
    await page.getByText('Live data: these payments move real money.').waitFor();

    // New payment: no form that could only be refused; why, and what to ask the operator.
    await openSection(page, 'Payments');
    await page.getByRole('link', { name: 'New payment' }).first().click();
    await page.getByRole('heading', { name: 'No live payments yet' }).waitFor();
    await page.getByText(`Ask the operator to approve your organization (id ${organizationId})`).waitFor();
    expect(await page.getByRole('button', { name: 'Create payment and link' }).count()).toBe(0);
    await pageIsFine(page, `new-payment-${label}`);

    // API keys: live keys, and why this organization cannot make one yet.
    await openSection(page, 'API keys');
    await page.getByRole('heading', { name: 'Create live API key' }).waitFor();
    await page.getByText('Live keys need your organization approved for a real provider').waitFor();
    expect(await page.getByRole('button', { name: 'Create API key' }).count()).toBe(0);
    await pageIsFine(page, `api-keys-${label}`);

    // Back on test data, both forms are there again.
    await page.getByRole('button', { name: 'Test data' }).click();
    await page.getByRole('button', { name: 'Create API key' }).waitFor();
    assertNoConsoleErrors();
  });
});
