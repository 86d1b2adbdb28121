import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, WEB_DIST } from './support/e2e-config.ts';

const BUDGET_BYTES = 100 * 1024;

describe('web bundle', () => {
  it('keeps the JavaScript the customer pages load within 100 KB gzipped', () => {
    const html = readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
    // Every script the page loads up front: entry and preloaded chunks (the pages are one app).
    const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map(
      (match) => match[1] as string,
    );
    expect(scripts.length).toBeGreaterThan(0);
    const gzipped = scripts.reduce(
      (sum, file) => sum + gzipSync(readFileSync(path.join(WEB_DIST, file)), { level: 9 }).length,
      0,
    );
    writeFileSync(
      path.join(ARTIFACTS_DIR, 'bundle.json'),
      `${JSON.stringify({ scripts, gzipped }, null, 2)}\n`,
    );
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
