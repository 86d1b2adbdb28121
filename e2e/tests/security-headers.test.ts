import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DESKTOP, launchBrowser, openCustomerPage } from './support/browser.ts';
import { logInAtMockBank, returnedToMerchant } from './support/customer-steps.ts';
import { createPayment, MERCHANT_ORIGIN } from './support/merchant-api.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe('security headers, as Chromium applies them', () => {
  it("no site can frame the Mock bank's Approve button (CSP frame-ancestors 'none')", async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, {
      expectedErrors: /frame-ancestors 'none'/,
    });
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes("frame-ancestors 'none'")) refusals.push(message.text());
    });
    const target = created.redirectUrl as string;
    // The control: a page at the service's origin without our headers (answered by the browser
    // harness) does load in a frame, so a blocked target is blocked by its own headers.
    const control = new URL('/framing-control', target).href;
    await page.route(control, (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>c</title><p>Control loaded</p>',
      }),
    );
    // A real server on this machine: a page the browser fulfils itself counts as public, and
    // Chromium's local network checks would block the frame before our headers could.
    const attacker = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(
        `<!doctype html><html lang="en"><title>Win a prize</title><iframe src="${control}"></iframe><iframe src="${target}"></iframe></html>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    const { port } = attacker.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}/prize`, { waitUntil: 'load' });
    attacker.close();
    const [controlFrame, targetFrame] = page.frames().filter((frame) => frame !== page.mainFrame());
    await expect.poll(async () => (await controlFrame?.content()) ?? '').toContain('Control loaded');
    expect(targetFrame?.url()).toMatch(/^chrome-error:/);
    await expect.poll(() => refusals.length).toBeGreaterThan(0);
    expect(await targetFrame?.getByRole('button', { name: /Log in|Approve payment/ }).count()).toBe(0);
    assertNoConsoleErrors();
  });

  it('the page works under its CSP, and the merchant gets no Referer carrying the link token', async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    const referers: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(MERCHANT_ORIGIN)) referers.push(request.headers().referer);
    });
    const response = await page.goto(created.redirectUrl as string);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    await logInAtMockBank(page);
    await page.getByRole('button', { name: 'Approve payment' }).click();
    expect((await returnedToMerchant(page)).get('status')).toBe('COMPLETED');
    expect(referers.length).toBeGreaterThan(0);
    expect(referers).toEqual(referers.map(() => undefined));
    assertNoConsoleErrors();
  });

  it("the API reference at /docs renders under a script-src without 'unsafe-inline' (its start-up script by hash)", async () => {
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser, { viewport: DESKTOP });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) violations.push(message.text());
    });
    const response = await page.goto(`${inject('baseUrl')}/docs/`);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    expect(csp.split(';').find((part) => part.trim().startsWith('script-src'))).not.toContain(
      'unsafe-inline',
    );
    // Rendered by the started script: the document's operations are on the page.
    await expect
      .poll(async () => page.getByText('Create a payment').count(), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(violations).toEqual([]);
    assertNoConsoleErrors();
  });

  it('a test payment\'s customer page says "Test payment: no money moves" and asks not to be indexed', async () => {
    const created = await createPayment();
    const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
    const response = await page.goto(created.redirectUrl as string);
    expect(response?.headers()['x-robots-tag']).toBe('noindex, nofollow');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');
    await expect.poll(async () => page.getByText('Test payment: no money moves').count()).toBe(1);
    assertNoConsoleErrors();
  });
});
