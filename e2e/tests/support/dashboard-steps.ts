import type { Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { MERCHANT_ORIGIN } from './merchant-api.ts';

/** What a merchant does on the dashboard, in the words the pages use. */

/**
 * Fills and sends the sign-up form (the page is open) and waits until the dashboard shows; a
 * refusal (a weak password, a rate limit) fails at once with the page's own words.
 */
export async function signUp(page: Page, account: { businessName: string; email: string; password: string }) {
  await page.getByLabel('Business name').fill(account.businessName);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  const dashboard = page.getByRole('navigation', { name: 'Dashboard' });
  const refusal = page.locator('.form-problem');
  await dashboard.or(refusal).first().waitFor({ timeout: 30_000 });
  if (await refusal.isVisible()) throw new Error(`sign-up refused: ${await refusal.textContent()}`);
}

/** Fills and sends the sign-in form (the page is open at /dashboard/sign-in). */
export async function signIn(page: Page, account: { email: string; password: string }) {
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Goes to a section through the dashboard's own navigation, as a merchant would. */
export async function openSection(
  page: Page,
  name: 'Overview' | 'Payments' | 'API keys' | 'Quick start' | 'Settings' | 'Team',
) {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1 }).waitFor();
}

/** Creates a key on the API keys page and reads it from the one-time notice. */
export async function createApiKey(page: Page, name: string): Promise<string> {
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByRole('heading', { name: `Your new API key “${name}”` }).waitFor();
  return (await page.getByTestId('new-api-key').textContent()) ?? '';
}

/** A plain HTTP call to the REST API with a key, as a merchant's server makes it. */
export async function callApi(apiKey: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${inject('baseUrl')}/api${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export const PAYMENT_BODY = {
  toAccount: { accountName: 'Dashboard Shop Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  amount: { value: '42.00', currency: 'GBP' },
  reference: 'DASH-ORDER-1',
  redirectUrl: `${MERCHANT_ORIGIN}/return?order=dash-1`,
};

/** The page fits the viewport: nothing forces a phone user to scroll sideways. */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}
