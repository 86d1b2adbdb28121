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

/**
 * Issue 20, item 4 in the browser: the request log (search, one request's masked bodies) and the
 * audit log, each scoped to the signed-in organization, at phone and desktop width, axe-clean.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const SIGNED_OUT_CHECK = /status of 401/;

async function merchant(viewport: { width: number; height: number }, name: string) {
  const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
    viewport,
    expectedErrors: SIGNED_OUT_CHECK,
  });
  await page.goto(`${inject('baseUrl')}/dashboard/sign-up`);
  const email = `${name}-${Date.now()}@logs.example`;
  await signUp(page, { businessName: `Logs ${name}`, email, password: 'a long enough passphrase' });
  await page.getByRole('heading', { level: 1, name: 'Quick start' }).waitFor();
  await openSection(page, 'API keys');
  const apiKey = await createApiKey(page, 'Server');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  return { page, email, apiKey, assertNoConsoleErrors };
}

const openLog = async (page: Page, name: 'Request log' | 'Audit log') => {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
};

describe.each([
  ['phone', PHONE],
  ['desktop', DESKTOP],
])('the request log and the audit log (%s)', (label, viewport) => {
  it('show the organization’s own requests and actions, searchable, bodies masked', async () => {
    const a = await merchant(viewport, `a-${label}`);
    const b = await merchant(viewport, `b-${label}`);
    const created = await callApi(a.apiKey, 'POST', '/payments', PAYMENT_BODY);
    expect(created.status).toBe(201);
    expect((await callApi(a.apiKey, 'GET', '/payments/pay_missing')).status).toBe(404);
    const otherRequest = `other-org-${label}-${Date.now()}`;
    await fetch(`${inject('baseUrl')}/api/payments`, {
      headers: { 'x-api-key': b.apiKey, 'x-request-id': otherRequest },
    });

    // The log is written a second after the answers: look until both are there.
    await openLog(a.page, 'Request log');
    const table = a.page.getByRole('region', { name: 'Requests' });
    for (let attempt = 0; attempt < 20 && (await table.getByRole('row').count()) < 3; attempt++) {
      await a.page.waitForTimeout(500);
      await a.page.reload();
      await a.page.getByRole('heading', { level: 1, name: 'Request log' }).waitFor();
    }
    await table.getByRole('link', { name: 'POST /api/payments' }).waitFor();
    expect(await table.textContent()).toContain('GET /api/payments/{paymentId}');
    expect(await a.page.getByText(otherRequest).count()).toBe(0);
    await expectAccessible(a.page);
    await expectNoSidewaysScroll(a.page);

    // Search: refused requests only.
    await a.page.getByLabel('Status').selectOption('4xx');
    await a.page.getByRole('button', { name: 'Search' }).click();
    await a.page.waitForURL(/status=4xx/);
    await table.getByRole('link', { name: 'GET /api/payments/{paymentId}' }).waitFor();
    // The table keeps the last answer on screen until the filtered one arrives.
    await table.getByRole('link', { name: 'POST /api/payments' }).waitFor({ state: 'detached' });
    expect(await table.getByRole('link', { name: 'POST /api/payments' }).count()).toBe(0);

    // One request: its bodies, the account number masked.
    await a.page.goto(`${inject('baseUrl')}/dashboard/logs/requests`);
    await table.getByRole('link', { name: 'POST /api/payments' }).click();
    await a.page.getByRole('heading', { level: 1, name: 'POST /api/payments' }).waitFor();
    const text = (await a.page.textContent('main')) ?? '';
    expect(text).toContain('****5678');
    expect(text).not.toContain('12345678');
    expect(text).toContain('DASH-ORDER-1');
    await expectAccessible(a.page);
    await expectNoSidewaysScroll(a.page);

    // The audit log: A's key, by A; nothing of B's.
    await openLog(a.page, 'Audit log');
    const audit = a.page.getByRole('region', { name: 'Audit entries' });
    await audit.getByRole('rowheader', { name: 'API key created' }).waitFor();
    expect(await audit.textContent()).toContain(a.email);
    expect(await audit.textContent()).not.toContain(b.email);
    await expectAccessible(a.page);
    await expectNoSidewaysScroll(a.page);

    // B sees its own request, not A's.
    await openLog(b.page, 'Request log');
    await b.page.getByText(otherRequest).waitFor();
    expect(await b.page.getByRole('link', { name: 'POST /api/payments' }).count()).toBe(0);

    a.assertNoConsoleErrors();
    b.assertNoConsoleErrors();
  });
});
