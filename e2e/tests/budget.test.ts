import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openCustomerPage } from './support/browser.ts';
import { ARTIFACTS_DIR, WEB_DIST } from './support/e2e-config.ts';
import { createPayment } from './support/merchant-api.ts';

/**
 * Issue 9: each customer page loads at most 80 KB of JavaScript gzipped (gzip -9), counted as
 * Vite's build output and most tools print it: 1 KB = 1,000 bytes (the stricter reading).
 */
const BUDGET_BYTES = 80 * 1000;

const gzipped = (file: string) => gzipSync(readFileSync(path.join(WEB_DIST, file)), { level: 9 }).length;

/** The dashboard's lazily loaded scripts (its routes and router, and the chart with uPlot). */
const dashboardScripts = () =>
  readdirSync(path.join(WEB_DIST, 'assets'))
    .filter((file) => /^(DashboardApp|draw-volume)-.*\.js$/.test(file))
    .map((file) => `/assets/${file}`);

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

/**
 * Every script a customer page really loads until it can be used, as Chromium requested them:
 * the entry, anything it preloads, and any chunk loaded on the way.
 */
const scriptsLoadedBy = async (url: string, ready: (page: Page) => Locator): Promise<string[]> => {
  const { page, assertNoConsoleErrors } = await openCustomerPage(browser);
  const scripts = new Set<string>();
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.endsWith('.js')) scripts.add(pathname);
  });
  await page.goto(url);
  await ready(page).waitFor();
  assertNoConsoleErrors();
  await page.context().close();
  return [...scripts].sort();
};

describe('web bundle', () => {
  it('keeps the JavaScript each customer page loads within 80 KB gzipped, without the dashboard or a router', async () => {
    const hosted = await createPayment({ flowType: 'HOSTED_PAGES' });
    const bank = await createPayment();
    const pages = {
      hosted: await scriptsLoadedBy(hosted.redirectUrl as string, (page) =>
        page.getByRole('listbox').getByRole('option').first(),
      ),
      mockBank: await scriptsLoadedBy(bank.redirectUrl as string, (page) =>
        page.getByRole('button', { name: 'Log in' }),
      ),
    };
    const dashboard = dashboardScripts();
    const sizes = Object.fromEntries(
      Object.entries(pages).map(([name, scripts]) => [
        name,
        { scripts, gzipped: scripts.reduce((sum, file) => sum + gzipped(file), 0) },
      ]),
    );
    writeFileSync(
      path.join(ARTIFACTS_DIR, 'bundle.json'),
      `${JSON.stringify(
        { ...sizes, dashboard: Object.fromEntries(dashboard.map((file) => [file, gzipped(file)])) },
        null,
        2,
      )}\n`,
    );
    for (const [name, { scripts, gzipped: total }] of Object.entries(sizes)) {
      expect(scripts.length, `${name} scripts`).toBeGreaterThan(0);
      expect(total, `${name} JavaScript gzipped`).toBeLessThanOrEqual(BUDGET_BYTES);
      expect(scripts.filter((file) => dashboard.includes(file))).toEqual([]);
      for (const file of scripts) {
        const text = readFileSync(path.join(WEB_DIST, file), 'utf8');
        // Nor is the dashboard's code folded into what the customer loads: no words only it uses.
        expect(text).not.toContain('Create API key');
        expect(text).not.toContain('uPlot');
        // BrowserRouter marks the window with its version: the router stays with the dashboard.
        expect(text).not.toContain('__reactRouterVersion');
      }
    }
  });

  it('loads the dashboard as its own chunks, with the router', () => {
    const dashboard = dashboardScripts();
    // Vite's file hashes may contain '-': match the names by their start.
    expect(dashboard).toHaveLength(2);
    expect(dashboard.some((file) => file.startsWith('/assets/DashboardApp-'))).toBe(true);
    expect(dashboard.some((file) => file.startsWith('/assets/draw-volume-'))).toBe(true);
    const app = dashboard.find((file) => file.startsWith('/assets/DashboardApp-')) as string;
    expect(readFileSync(path.join(WEB_DIST, app), 'utf8')).toContain('__reactRouterVersion');
  });
});
