import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, WEB_DIST } from './support/e2e-config.ts';

const BUDGET_BYTES = 100 * 1024;

const gzipped = (file: string) => gzipSync(readFileSync(path.join(WEB_DIST, file)), { level: 9 }).length;

/** Every script the customer pages load up front: the entry and its preloaded chunks. */
const upfrontScripts = () => {
  const html = readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1] as string);
};

/** The dashboard's lazily loaded scripts (its routes, and the chart with uPlot). */
const dashboardScripts = () =>
  readdirSync(path.join(WEB_DIST, 'assets'))
    .filter((file) => /^(DashboardApp|draw-volume)-.*\.js$/.test(file))
    .map((file) => `/assets/${file}`);

describe('web bundle', () => {
  it('keeps the JavaScript the customer pages load within 100 KB gzipped', () => {
    const scripts = upfrontScripts();
    expect(scripts.length).toBeGreaterThan(0);
    const total = scripts.reduce((sum, file) => sum + gzipped(file), 0);
    const dashboard = dashboardScripts();
    writeFileSync(
      path.join(ARTIFACTS_DIR, 'bundle.json'),
      `${JSON.stringify(
        {
          scripts,
          gzipped: total,
          dashboard: Object.fromEntries(dashboard.map((file) => [file, gzipped(file)])),
        },
        null,
        2,
      )}\n`,
    );
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('loads the dashboard as its own chunks, never with the customer pages', () => {
    const dashboard = dashboardScripts();
    // Vite's file hashes may contain '-': match the names by their start.
    expect(dashboard).toHaveLength(2);
    expect(dashboard.some((file) => file.startsWith('/assets/DashboardApp-'))).toBe(true);
    expect(dashboard.some((file) => file.startsWith('/assets/draw-volume-'))).toBe(true);
    const upfront = upfrontScripts();
    expect(upfront.filter((file) => dashboard.includes(file))).toEqual([]);
    // Nor is its code folded into the entry: no words only the dashboard uses.
    for (const file of upfront) {
      const text = readFileSync(path.join(WEB_DIST, file), 'utf8');
      expect(text).not.toContain('Create API key');
      expect(text).not.toContain('uPlot');
    }
  });
});
