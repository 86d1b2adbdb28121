import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './support/bank.ts';
import { bankWithTpp, createPayment, SCT, TPP_NOK_REDIRECT, TPP_REDIRECT } from './support/xs2a.ts';

/**
 * The customer at Sandbox Bank EU in Chromium (Debian's): from the scaRedirect link, sign in
 * (prefilled), see the payment, choose the account, approve or reject, and land on the TPP's
 * redirect URI. Axe-clean at 375 and 1280 px, nothing loaded from elsewhere; screenshots kept in
 * sandbox-bank/artifacts/ (gitignored).
 */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 800 };
const ARTIFACTS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'artifacts');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TPP_ORIGIN = new URL(TPP_REDIRECT).origin;

describe('the customer at Sandbox Bank EU, in Chromium', () => {
  const started = bankWithTpp({ stepMs: 300 });
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function openAt(viewport: { width: number; height: number }, url: string) {
    const context = await browser.newContext({ viewport, locale: 'de-DE' });
    const page = await context.newPage();
    page.setDefaultTimeout(8_000);
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    let landed: string | undefined;
    await page.route(`${TPP_ORIGIN}/**`, (route) => {
      landed = route.request().url();
      return route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><html lang="en"><title>Back</title></html>',
      });
    });
    await page.goto(url);
    return { page, context, requests, errors, landed: () => landed };
  }

  async function expectAccessible(page: Page) {
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run: (d: Document, o: unknown) => Promise<unknown> } }).axe;
      const result = (await axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      })) as { violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] };
      return result.violations.map(({ id, impact, nodes }) => ({
        id,
        impact,
        targets: nodes.map((n) => n.target),
      }));
    });
    expect(violations).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(ARTIFACTS, `xs2a-${name}.png`), fullPage: true });
  const status = async (paymentId: string) =>
    (
      await started.tpp.call('GET', `${SCT}/${paymentId}/status`, {
        schema: 'paymentInitiationStatusResponse-200_json',
      })
    ).body;

  for (const viewport of [PHONE, DESKTOP]) {
    it(`signs in and approves at ${viewport.width} px, landing on TPP-Redirect-URI; ACSC follows`, async () => {
      const created = await createPayment(started.tpp, '42.00');
      const { paymentId, _links } = created.body;
      const { page, context, requests, errors, landed } = await openAt(viewport, _links.scaRedirect.href);

      expect(await page.getByLabel('Username').inputValue()).toBe('lena.schmidt');
      expect(await page.getByLabel('Password').inputValue()).not.toBe('');
      expect(await page.locator('.brand').innerText()).toBe('Sandbox Bank EU');
      await expectAccessible(page);
      await shot(page, `sign-in-${viewport.width}`);
      await page.getByRole('button', { name: 'Sign in' }).click();

      await page.getByRole('heading', { name: 'Approve this payment' }).waitFor();
      const summary = await page.locator('dl').innerText();
      expect(summary).toContain('Kaffeehaus Berlin GmbH');
      expect(summary).toContain('€42.00');
      expect(summary).toContain('DE89 3704 0044 0532 0130 00');
      const payFrom = page.getByRole('group', { name: 'Pay from' });
      expect(await payFrom.getByRole('radio').count()).toBe(2);
      await payFrom.getByLabel(/Current account/).check();
      await expectAccessible(page);
      await shot(page, `approve-${viewport.width}`);
      await page.getByRole('button', { name: 'Approve payment' }).click();

      await expect.poll(landed, { timeout: 10_000 }).toBe(TPP_REDIRECT);
      await until(async () => (await status(paymentId)).transactionStatus === 'ACSC', 5_000);
      expect(
        requests.filter((url) => !url.startsWith(started.bank.pagesUrl) && !url.startsWith(TPP_ORIGIN)),
      ).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it('rejects at 375 px: back at TPP-Nok-Redirect-URI, the payment RJCT', async () => {
    const created = await createPayment(started.tpp, '9.99');
    const { page, context, landed } = await openAt(PHONE, created.body._links.scaRedirect.href);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(landed, { timeout: 10_000 }).toBe(TPP_NOK_REDIRECT);
    expect((await status(created.body.paymentId)).transactionStatus).toBe('RJCT');
    await context.close();
  });

  it('over the balance at 1280 px: approved from the €50.00 pocket account, then RJCT with fundsAvailable false', async () => {
    const created = await createPayment(started.tpp, '80.00');
    const { page, context, landed } = await openAt(DESKTOP, created.body._links.scaRedirect.href);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page
      .getByRole('group', { name: 'Pay from' })
      .getByLabel(/Pocket account/)
      .check();
    await page.getByRole('button', { name: 'Approve payment' }).click();
    await expect.poll(landed, { timeout: 10_000 }).toBe(TPP_REDIRECT);
    const rejected = await until(async () => {
      const body = await status(created.body.paymentId);
      return body.transactionStatus === 'RJCT' ? body : undefined;
    }, 5_000);
    expect(rejected.fundsAvailable).toBe(false);
    // The link is closed now: the page says so, accessibly. (Let the navigation to the TPP end first,
    // or it interrupts the next one.)
    await page.waitForURL(`${TPP_ORIGIN}/**`);
    await page.goto(created.body._links.scaRedirect.href);
    await page.getByRole('heading', { name: 'This payment is closed' }).waitFor();
    await expectAccessible(page);
    await context.close();
  });
});
