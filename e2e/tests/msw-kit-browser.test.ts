import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { launchBrowser } from './support/browser.ts';
import { REPO_ROOT } from './support/e2e-config.ts';

// The SDK's MSW kit in Chromium, with no server at all: a page bundled from msw-kit-page/ talks to
// the kit through MSW's service worker (`mockServiceWorker.js`, served by the page's own static
// server, as `npx msw init public/` would place it).

const PAGE_DIR = fileURLToPath(new URL('./msw-kit-page/', import.meta.url));
const OUT_DIR = path.join(tmpdir(), `pis-msw-kit-page-${process.pid}`);
const WORKER_SCRIPT = path.join(REPO_ROOT, 'node_modules', 'msw', 'lib', 'mockServiceWorker.js');

let server: Server;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  await build({
    configFile: false,
    logLevel: 'warn',
    root: PAGE_DIR,
    define: { 'process.env.NODE_ENV': '"production"' },
    build: {
      outDir: OUT_DIR,
      emptyOutDir: true,
      minify: false,
      lib: { entry: path.join(PAGE_DIR, 'main.ts'), formats: ['es'], fileName: () => 'main.js' },
    },
  });
  const files: Record<string, [string, string]> = {
    '/': [path.join(PAGE_DIR, 'index.html'), 'text/html'],
    '/main.js': [path.join(OUT_DIR, 'main.js'), 'text/javascript'],
    '/mockServiceWorker.js': [WORKER_SCRIPT, 'text/javascript'],
  };
  server = createServer(async (request, response) => {
    const file = files[new URL(request.url ?? '/', 'http://localhost').pathname];
    if (!file) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file[1] }).end(await readFile(file[0]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // localhost: a secure context, as service workers require.
  origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

test('create a payment, approve it through the kit, see COMPLETED: in Chromium, no server', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  // Anything leaving the browser for the API would be a failure: the kit answers in the worker.
  const escaped: string[] = [];
  await context.route('https://pis.test/**', (route) => {
    escaped.push(route.request().url());
    return route.abort();
  });

  await page.goto(origin);
  await page.getByText('Mock API ready').waitFor();
  expect(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL)).toBe(
    `${origin}/mockServiceWorker.js`,
  );
  await page.getByRole('button', { name: 'Pay £10.50' }).click();
  await expect.poll(() => page.locator('#status').textContent()).toBe('AUTHORIZING');
  await page.getByRole('button', { name: /Approve at the Mock bank/ }).click();
  await expect.poll(() => page.locator('#status').textContent(), { timeout: 15_000 }).toBe('COMPLETED');
  expect(await page.locator('#seen li').allTextContents()).toEqual([
    'AUTHORIZING',
    'AUTHORIZED',
    'SUBMITTED',
    'ACCEPTED',
    'COMPLETED',
  ]);
  expect(escaped).toEqual([]);
  expect(errors).toEqual([]);
  await context.close();
});
