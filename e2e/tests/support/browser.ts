import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { ARTIFACTS_DIR, CHROMIUM_PATH } from './e2e-config.ts';
import { MERCHANT_ORIGIN } from './merchant-api.ts';

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
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

export const PHONE = { width: 375, height: 812 };
export const DESKTOP = { width: 1280, height: 800 };

export interface CustomerPage {
  page: Page;
  /** Fails the test on any console error or uncaught exception not explicitly expected. */
  assertNoConsoleErrors(): void;
}

/**
 * A fresh browser context (no shared cookies or cache) with the merchant's return site
 * answered locally, and console errors collected. `expectedErrors` lets unhappy-path tests
 * accept the browser's own "Failed to load resource" line for an error status they provoke.
 */
export async function openCustomerPage(
  browser: Browser,
  options: { viewport?: { width: number; height: number }; expectedErrors?: RegExp } = {},
): Promise<CustomerPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? PHONE, locale: 'en-GB' });
  const page = await context.newPage();
  await page.route(`${MERCHANT_ORIGIN}/**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><title>Merchant</title><h1>Back at the merchant</h1></html>',
    }),
  );
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !options.expectedErrors?.test(message.text()))
      errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return {
    page,
    assertNoConsoleErrors: () => expect(errors).toEqual([]),
  };
}

/** Full-page screenshots at phone and desktop width into the gitignored artifacts folder. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const original = page.viewportSize();
  for (const viewport of [PHONE, DESKTOP]) {
    await page.setViewportSize(viewport);
    await page.screenshot({
      path: path.join(ARTIFACTS_DIR, `${name}-${viewport.width}.png`),
      fullPage: true,
    });
  }
  if (original) await page.setViewportSize(original);
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/** Runs axe-core (WCAG 2.x A/AA and best practices) in the page; no serious or critical finding allowed. */
export async function expectAccessible(page: Page): Promise<void> {
  // Evaluated through the DevTools protocol, not as an inline <script>: the pages' CSP refuses those.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<unknown> } }
    ).axe;
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
    })) as { violations: AxeViolation[] };
    return result.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      targets: nodes.map((node) => node.target),
    }));
  });
  expect(
    violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical'),
  ).toEqual([]);
}
