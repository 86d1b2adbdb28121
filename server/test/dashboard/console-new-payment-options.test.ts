import type { CreatedPayment, NewPaymentOptions } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { controllableProvider } from '../payments/test-provider.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

/**
 * New payment offers what the create takes (issue 34 items 3 and 9): the providers the session
 * can use in its mode, with the banks "Straight to the bank" can go to, or why there is none.
 * `obie` is a stand-in adapter: the options read the bank catalogue, not the bank.
 */
const obie = controllableProvider('obie');
const { app, factories, orm } = await createTestApp({
  providers: createProviderRegistry([createMockProvider(testConfig()), obie.provider]),
});
const withoutObie = await createTestApp();

let addresses = 0;
const signedUp = async (on = app) => {
  const b = new DashboardBrowser(on, `198.51.100.${++addresses}`);
  const session = await b.signUp();
  return { b, session };
};
const verified = (userId: string, on = orm) =>
  on.em
    .fork()
    .getConnection()
    .execute('update dashboard_user set email_verified_at = now() where id = ?', [userId]);
const options = async (b: DashboardBrowser) => data<NewPaymentOptions>(await b.query('payments.options'));

const BODY = {
  amount: { value: '12.50', currency: 'GBP' },
  toAccount: { accountName: 'Corner Café', sortCode: '04-00-04', accountNumber: '12345678' },
  flowType: 'API_ONLY',
};

describe('New payment’s options', () => {
  test('test data: the Mock bank, and obie with its one bank once the operator approved it; that bank makes the create work', async () => {
    const { b, session } = await signedUp();
    expect(await options(b)).toEqual({
      mode: 'test',
      providers: [{ code: 'mock', name: 'Mock bank', banks: [], needsBank: false }],
      unavailable: null,
      hostedPages: true,
    });

    await factories.approveProvider(session.organization.id, 'obie');
    const offered = await options(b);
    expect(offered.providers.map((provider) => provider.code)).toEqual(['mock', 'obie']);
    expect(offered.providers[1]).toEqual({
      code: 'obie',
      name: 'UK Open Banking',
      banks: [{ id: 'obie-sandbox-bank', name: 'Sandbox Bank' }],
      needsBank: true,
    });

    // The bank the form takes is one the create accepts.
    const bankId = offered.providers[1]?.banks[0]?.id;
    const made = data<CreatedPayment>(
      await b.mutation('payments.create', {
        payment: { ...BODY, provider: 'obie', bankId },
        idempotencyKey: 'obie-form-1',
      }),
    );
    expect(made).toMatchObject({ provider: 'obie', bankId: 'obie-sandbox-bank' });
  });

  test('live data: no Mock bank and no practice bank, so nothing; it says why and whom to ask', async () => {
    const { b, session } = await signedUp();
    await verified(session.user.id);
    data(await b.mutation('account.setMode', { mode: 'live' }));
    const none = await options(b);
    expect(none).toMatchObject({ mode: 'live', providers: [] });
    expect(none.unavailable).toContain('Ask the operator to approve your organization');
    expect(none.unavailable).toContain(session.organization.id);

    await factories.approveProvider(session.organization.id, 'obie');
    const practice = await options(b);
    expect(practice.providers).toEqual([]);
    expect(practice.unavailable).toMatch(/only practice banks .* Ask the operator to connect a real bank/);

    // The create agrees: a live Mock bank payment is refused.
    const refused = failure(
      await b.mutation('payments.create', { payment: BODY, idempotencyKey: 'live-mock' }),
      400,
    );
    expect(refused.code).toBe('PRACTICE_BANK_TEST_ONLY');
  });

  test('a provider approved but not switched on in this service is named, with what to ask', async () => {
    const { b, session } = await signedUp(withoutObie.app);
    await withoutObie.factories.approveProvider(session.organization.id, 'obie');
    await verified(session.user.id, withoutObie.orm);
    data(await b.mutation('account.setMode', { mode: 'live' }));
    expect((await options(b)).unavailable).toBe(
      'UK Open Banking is approved for your organization but not switched on in this service. Ask the operator to switch it on.',
    );
  });

  test('needs a session', async () => {
    failure(await new DashboardBrowser(app, '198.51.100.250').query('payments.options'), 401);
  });
});
