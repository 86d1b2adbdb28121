import type { CreatedApiKey } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createTestApp } from '../helpers/test-app.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

/**
 * Live data makes live keys (issue 34 item 9): the key's mode is the session's, under the CLI's
 * own rule (an organization approved for a real provider); a refusal stores nothing.
 */
const { app, factories, orm } = await createTestApp();

let addresses = 0;
const onLiveData = async () => {
  const b = new DashboardBrowser(app, `198.51.100.${++addresses}`);
  const session = await b.signUp();
  await orm.em
    .fork()
    .getConnection()
    .execute('update dashboard_user set email_verified_at = now() where id = ?', [session.user.id]);
  data(await b.mutation('account.setMode', { mode: 'live' }));
  return { b, session };
};
const keys = async (b: DashboardBrowser) =>
  data<{ apiKeys: { mode: string }[] }>(await b.query('apiKeys.list')).apiKeys;

describe('API keys on live data', () => {
  test('without a real provider: refused, saying why, and no key is made', async () => {
    const { b } = await onLiveData();
    const refused = failure(
      await b.mutation('apiKeys.create', { name: 'Live till', permissions: ['write'] }),
      403,
    );
    expect(refused.message).toMatch(/approved for a real provider/);
    expect(await keys(b)).toEqual([]);
  });

  test('approved for obie: a live key (pis_live_), listed as Live; test data still makes test keys', async () => {
    const { b, session } = await onLiveData();
    await factories.approveProvider(session.organization.id, 'obie');
    const live = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Live till', permissions: ['read', 'write'] }),
    );
    expect(live.secret).toMatch(/^pis_live_/);
    expect(live.apiKey.mode).toBe('live');

    data(await b.mutation('account.setMode', { mode: 'test' }));
    const test = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Test till', permissions: ['read'] }),
    );
    expect(test.secret).toMatch(/^pis_test_/);
    expect((await keys(b)).map((key) => key.mode).sort()).toEqual(['live', 'test']);
  });
});
