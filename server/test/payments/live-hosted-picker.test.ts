import { describe, expect, test } from 'vitest';
import { createKey } from '../../src/cli/admin-actions.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import {
  created,
  paymentBody,
  tokenOf,
  trpcData,
  trpcFailure,
  trpcMutation,
  trpcQuery,
} from './payment-fixtures.ts';
import { controllableProvider } from './test-provider.ts';

/**
 * Decision 072: practice banks take test payments only. A live hosted payment's picker shows no
 * practice bank (offering one would only end in a refusal); a test payment's still lists them,
 * and a live choice of one is still refused. `obie` here is a stand-in adapter: the picker reads
 * the bank catalogue, not the bank.
 */
const obie = controllableProvider('obie');
const { app, factories, orm, clock } = await createTestApp({
  providers: createProviderRegistry([createMockProvider(testConfig()), obie.provider]),
});
const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'obie');
const live = await createKey(
  orm.em.fork(),
  { organizationId: merchant.organizationId, permissions: { read: true, write: true }, mode: 'live' },
  clock,
);
const liveKey = { 'x-api-key': live.apiKey };
const hosted = paymentBody({ provider: 'obie', flowType: 'HOSTED_PAGES', bankId: undefined });

const picker = async (token: string) =>
  trpcData<{ banks: { id: string }[] }>(await trpcQuery(app, 'pages.hostedBanks', { token, country: 'GB' }));
const session = async (token: string) =>
  trpcData<{ countries: string[] }>(await trpcQuery(app, 'pages.hostedSession', { token }));

describe('the hosted bank picker and practice banks', () => {
  test('a test payment lists the sandbox bank', async () => {
    const token = tokenOf((await created(app, merchant.headers, hosted)).redirectUrl);
    expect((await picker(token)).banks.map((bank) => bank.id)).toEqual(['obie-sandbox-bank']);
    expect((await session(token)).countries).toContain('GB');
  });

  test('a live payment lists no practice bank, offers no country of only practice banks, and still refuses the choice', async () => {
    const token = tokenOf((await created(app, liveKey, hosted)).redirectUrl);
    expect(await picker(token)).toMatchObject({ banks: [], pagination: { total: 0 } });
    expect((await session(token)).countries).toEqual([]);
    const refused = trpcFailure(
      await trpcMutation(app, 'pages.chooseBank', { token, bankId: 'obie-sandbox-bank' }),
      400,
    );
    expect(refused.code).toBe('PRACTICE_BANK_TEST_ONLY');
  });
});
