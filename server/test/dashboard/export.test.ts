import { DASHBOARD_SESSION_COOKIE } from '@pis/shared';
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { expectFailure, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, paymentBody, SECOND } from '../payments/payment-fixtures.ts';
import { DashboardBrowser } from './dashboard-browser.ts';

const { app, clock, factories, orm } = await createTestApp();

/** The dashboard's "Export CSV" link, followed with the browser's session cookie. */
const download = (b: DashboardBrowser, query = '') =>
  app.inject({
    method: 'GET',
    url: `/api/dashboard/payments/export${query}`,
    headers: b.cookie ? { cookie: `${DASHBOARD_SESSION_COOKIE}=${b.cookie}` } : {},
    remoteAddress: b.address,
  });

const b = new DashboardBrowser(app, '192.0.2.77');
const session = await b.signUp();
const { apiKey } = await factories.createKey(session.organization.id);
const headers = { 'x-api-key': apiKey };
const gbp = await created(app, headers, paymentBody({ reference: 'INV-42 coffee' }));
clock.advance(SECOND);
const eur = await created(
  app,
  headers,
  paymentBody({ reference: '=cmd', amount: { value: '3.00', currency: 'EUR' } }),
);
const outsider = await factories.createMerchant();
await created(app, outsider.headers, paymentBody({ reference: 'INV-42 not theirs' }));

describe('the dashboard export (session, same filters and CSV as GET /api/payments/export)', () => {
  test('the same bytes as the API export for the same filters, as a download', async () => {
    for (const query of [
      '',
      '?search=inv-42',
      '?currency=EUR',
      `?createdTo=${encodeURIComponent(gbp.createdAt)}`,
    ]) {
      const mine = await download(b, query);
      expect(mine.statusCode, mine.body).toBe(200);
      expect(mine.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(mine.headers['content-disposition']).toBe('attachment; filename="payments.csv"');
      expect(mine.headers['cache-control']).toBe('no-store');
      const api = await app.inject({ method: 'GET', url: `/api/payments/export${query}`, headers });
      expect(mine.body).toBe(api.body);
    }
    const rows = parse((await download(b)).body) as string[][];
    expect(rows.slice(1).map((row) => row[0])).toEqual([eur.paymentId, gbp.paymentId]);
    expect(rows[1]).toContain("'=cmd");
    expect((parse((await download(b, '?search=INV-42')).body) as string[][]).slice(1)).toHaveLength(1);
  });

  test('signed out is 401 and bad filters are 400 VALIDATION_FAILED, in the envelope', async () => {
    expectFailure(await download(new DashboardBrowser(app)), 401);
    const details = expectValidationFailed(
      await download(b, '?createdFrom=2026-11-02T00:00:00Z&createdTo=2026-11-01T00:00:00Z'),
    );
    expect(details).toEqual([{ field: 'createdFrom', message: 'must not be after createdTo' }]);
    expect(expectValidationFailed(await download(b, `?search=${'%'.repeat(101)}`))[0]?.field).toBe('search');
    expect(expectValidationFailed(await download(b, '?limit=5'))[0]?.field).toBe('limit');
  });
});

describe('the dashboard export follows every rule a dashboard call does (issue 31 item 7)', () => {
  test('the organization’s two-step requirement: a member without it is refused', async () => {
    const member = new DashboardBrowser(app, '192.0.2.78');
    const own = await member.signUp();
    await orm.em
      .fork()
      .getConnection()
      .execute('update organization set require_two_step = true where id = ?', [own.organization.id]);
    const refused = expectFailure(await download(member), 403);
    expect(refused.message).toMatch(/requires two-step verification/);
  });

  test('the test/live switch: on live data the test payments are not exported', async () => {
    await orm.em
      .fork()
      .getConnection()
      .execute('update dashboard_user set email_verified_at = now() where id = ?', [session.user.id]);
    await b.mutation('account.setMode', { mode: 'live' });
    const live = parse((await download(b)).body) as string[][];
    expect(live.slice(1)).toEqual([]);
    await b.mutation('account.setMode', { mode: 'test' });
    expect((parse((await download(b)).body) as string[][]).slice(1)).toHaveLength(2);
  });
});

describe('the dashboard export is budgeted per organization', () => {
  test('two sessions of one organization share one budget', async () => {
    const limited = await createTestApp({
      config: { rateLimits: { ...testConfig().rateLimits, enabled: true, dashboard: 3 } },
    });
    const first = new DashboardBrowser(limited.app, '192.0.2.90');
    const owner = await first.signUp();
    const second = new DashboardBrowser(limited.app, '192.0.2.91');
    await second.signIn(owner.user.email, owner.password);
    const get = (browser: DashboardBrowser) =>
      limited.app.inject({
        method: 'GET',
        url: '/api/dashboard/payments/export',
        headers: { cookie: `${DASHBOARD_SESSION_COOKIE}=${browser.cookie}` },
        remoteAddress: browser.address,
      });
    const statuses = [];
    for (const browser of [first, second, first, second]) statuses.push((await get(browser)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});
