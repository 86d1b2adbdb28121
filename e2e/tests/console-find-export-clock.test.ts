import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, expectAccessible, launchBrowser, openCustomerPage, PHONE } from './support/browser.ts';
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

/** The signed-up merchant's key and a way to create a Mock bank payment with it. */
async function merchant(page: Page, label: string) {
  await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
  await signUp(page, {
    businessName: `Bakery ${label}`,
    email: `bakery-${label}-${Date.now()}@shop.example`,
    password: 'a long enough passphrase',
  });
  await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
  await openSection(page, 'API keys');
  const apiKey = await createApiKey(page, 'Till');
  const create = async (reference: string, extra: Record<string, unknown> = {}) => {
    const created = await callApi(apiKey, 'POST', '/payments', { ...PAYMENT_BODY, reference, ...extra });
    expect(created.status).toBe(201);
    return String((created.body.data as { paymentId: string }).paymentId);
  };
  return { apiKey, create };
}

/** Today in the browser's own calendar, as a date field takes it. */
const today = (page: Page) =>
  page.evaluate(() => {
    const now = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  });

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('find, export and test clocks on the dashboard (%s)', (label, viewport) => {
  it('searches by reference and date range in the address, exports that as CSV, and advances test clocks', async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      viewport,
      expectedErrors: SIGNED_OUT_CHECK,
    });
    const { apiKey, create } = await merchant(page, label);
    const wanted = await create('INV-2026-0042 flowers');
    await create('INV-2026-0099 cake');
    await create('=HYPERLINK("http://evil.example")');

    // Search by part of a reference; the address keeps it, so the link can be shared.
    await openSection(page, 'Payments');
    await page.getByLabel('Search').fill('0042');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–1 of 1').waitFor();
    expect(new URL(page.url()).searchParams.get('search')).toBe('0042');
    const rows = page.getByRole('region', { name: 'Payments' }).locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('INV-2026-0042 flowers');
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    // A date range: today only (all three), then a day that has none.
    const day = await today(page);
    await page.getByLabel('Search').fill('');
    await page.getByLabel('From').fill(day);
    await page.getByLabel('To').fill(day);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('1–3 of 3').waitFor();
    // The list may show all three before the address is updated (the search had emptied it).
    await page.waitForURL(
      (url) => url.searchParams.get('from') === day && url.searchParams.get('to') === day,
    );
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ from: day, to: day });
    await page.goto(`${inject('baseUrl')}/dashboard/payments?from=2001-01-01&to=2001-01-31`);
    await page.getByText('No payments match these filters.').waitFor();
    await expectAccessible(page);

    // The shared link opens the same list; Export CSV downloads exactly what it shows.
    await page.goto(`${inject('baseUrl')}/dashboard/payments?search=INV-2026&from=${day}`);
    await page.getByText('1–2 of 2').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('payments.csv');
    const csv = readFileSync((await download.path()) as string, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toMatch(/^paymentId,createdAt,/);
    expect(csv).toHaveLength(3);
    expect(csv.some((line) => line.startsWith(`${wanted},`))).toBe(true);
    expect(csv.join('\n')).not.toContain('HYPERLINK');

    // Test clock, to completion: approved with the realistic timeline, then a minute ahead.
    const completing = await create('CLOCK-COMPLETE');
    expect(
      (await callApi(apiKey, 'POST', `/payments/${completing}/mock-bank/approve`, { preset: 'realistic' }))
        .status,
    ).toBe(200);
    await page.goto(`${inject('baseUrl')}/dashboard/payments/${completing}`);
    await page.getByLabel('Advance time').selectOption({ label: '1 minute' });
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Advance time' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText: 'Moved the test clock of £42.00 to Dashboard Shop Ltd 1 minute ahead. It is now Completed.',
      })
      .waitFor();
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Completed' }).waitFor();
    expect(await page.getByText('Simulated (test clock)').count()).toBe(3);
    // Who acted: the key that created and approved it, then the bank for the later steps.
    const timeline = page.getByRole('list', { name: 'Status history' });
    expect(await timeline.getByText(/by API key pis_(?:(?:test|live)_)?[0-9A-Za-z]{8}…/).count()).toBe(3);
    expect(await timeline.getByText(/by the bank/).count()).toBe(3);
    await expectAccessible(page);
    await expectNoSidewaysScroll(page);

    // Test clock, to expiry: nobody approves within the day.
    const expiring = await create('CLOCK-EXPIRE');
    await page.goto(`${inject('baseUrl')}/dashboard/payments/${expiring}`);
    await page.getByLabel('Advance time').selectOption({ label: '24 hours (past the expiry)' });
    await page.getByRole('button', { name: 'Advance time' }).click();
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Expired' }).waitFor();
    expect(await page.getByText('Simulated (test clock)').count()).toBe(1);
    expect((await callApi(apiKey, 'GET', `/payments/${expiring}`)).body.data).toMatchObject({
      status: 'EXPIRED',
    });
    await expectAccessible(page);
    assertNoConsoleErrors();
  });
});
