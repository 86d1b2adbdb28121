import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import { createTestApp } from './helpers/test-app.ts';

const dist = await mkdtemp(path.join(os.tmpdir(), 'pis-web-'));
await mkdir(path.join(dist, 'assets'));
await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>SPA</title>');
await writeFile(path.join(dist, 'assets', 'app-1234.js'), 'console.log(1)');
const { app } = await createTestApp({ config: { webDistDir: dist } });
const { app: bare } = await createTestApp({ config: { webDistDir: path.join(dist, 'missing') } });
const html = { accept: 'text/html,application/xhtml+xml' };

test('serves the build: index, fingerprinted assets cached for a year', async () => {
  const index = await app.inject({ method: 'GET', url: '/', headers: html });
  expect(index.statusCode).toBe(200);
  expect(index.body).toContain('<title>SPA</title>');
  const asset = await app.inject({ method: 'GET', url: '/assets/app-1234.js' });
  expect(asset.statusCode).toBe(200);
  expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
});

test('deep links get index.html; API, tRPC, docs and non-HTML misses do not', async () => {
  for (const url of ['/pay/tok_123', '/mock-bank/abc?x=1', '/some/deep/link']) {
    const response = await app.inject({ method: 'GET', url, headers: html });
    expect(response.statusCode, url).toBe(200);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['x-robots-tag'], url).toBe('noindex, nofollow');
    expect(response.body).toContain('<title>SPA</title>');
  }
  const api = await app.inject({ method: 'GET', url: '/api/nope', headers: html });
  expect(api.statusCode).toBe(404);
  expect(api.json()).toEqual({ success: false, error: { message: 'Not found' } });
  for (const url of ['/trpc', '/docs/nope', '/bank-logos/nope.png']) {
    expect((await app.inject({ method: 'GET', url, headers: html })).body, url).not.toContain('<title>SPA');
  }
  expect((await app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
  const jsonOnly = await app.inject({
    method: 'GET',
    url: '/pay/tok_123',
    headers: { accept: 'application/json' },
  });
  expect(jsonOnly.statusCode).toBe(404);
  expect((await app.inject({ method: 'POST', url: '/pay/tok_123', headers: html })).statusCode).toBe(404);
});

test('customer links open for curl and link checkers too (Accept */* or none)', async () => {
  for (const headers of [{ accept: '*/*' }, {}]) {
    const response = await app.inject({ method: 'GET', url: '/mock-bank/tok_123', headers });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  }
});

test('without a build the server still starts and answers 404 outside the API', async () => {
  expect((await bare.inject({ method: 'GET', url: '/', headers: html })).statusCode).toBe(404);
});
