import type { ApiKeyEntry, CreatedApiKey } from '@pis/shared';
import { describe, expect, test, vi } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key-secret.ts';
import { forgetKeyUseWrites, settleKeyUseWrites } from '../../src/auth/authenticate-api-key.ts';
import { ApiKey } from '../../src/db/entities/index.ts';
import { adminCli, oneJsonLine } from '../helpers/admin-cli.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created } from '../payments/payment-fixtures.ts';
import { DashboardBrowser, data, failure } from './dashboard-browser.ts';

// With the API key cache, as `npm start` runs: a revoked key must still fail on the next request.
const { app, orm, clock, databaseUrl, factories } = await createTestApp({ keyCache: true });

let addresses = 0;
const signedIn = async () => {
  const b = new DashboardBrowser(app, `192.0.2.${++addresses}`);
  const session = await b.signUp();
  return { b, session };
};
const apiGet = (url: string, apiKey: string) =>
  app.inject({ method: 'GET', url, headers: { 'x-api-key': apiKey } });
const keyList = async (b: DashboardBrowser) =>
  data<{ apiKeys: ApiKeyEntry[] }>(await b.query('apiKeys.list')).apiKeys;

describe('the API keys page', () => {
  test('create: the secret once, only its hash stored, a working key with the chosen permissions', async () => {
    const { b } = await signedIn();
    const made = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Checkout server', permissions: ['read'] }),
    );
    expect(made.secret).toMatch(/^pis_test_[0-9A-Za-z]{48}$/);
    expect(made.apiKey).toMatchObject({
      name: 'Checkout server',
      prefix: made.secret.slice(0, 17),
      permissions: ['read'],
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      state: 'active',
      createdAt: clock.now().toISOString(),
    });
    const row = await orm.em.fork().findOneOrFail(ApiKey, { id: made.apiKey.id });
    expect(row.keyHash).toBe(hashApiKey(made.secret));
    // The list never carries the secret again.
    const list = await keyList(b);
    expect(list).toEqual([made.apiKey]);
    expect(JSON.stringify(list)).not.toContain(made.secret.slice(12));

    expectSuccess(await apiGet('/api/banks', made.secret));
    const write = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { 'x-api-key': made.secret },
    });
    expect(expectFailure(write, 403).message).toBe('API key lacks write permission');
  });

  test('states: active, expired (by the clock), revoked; newest first', async () => {
    const { b } = await signedIn();
    const expiring = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', {
        name: 'Short-lived',
        permissions: ['read', 'write'],
        expiresAt: new Date(clock.now().getTime() + 10 * 60_000).toISOString(),
      }),
    );
    clock.advance(1000);
    const revoked = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Old', permissions: ['write'] }),
    );
    data(await b.mutation('apiKeys.revoke', { apiKeyId: revoked.apiKey.id }));
    clock.advance(10 * 60_000);
    expect((await keyList(b)).map((key) => [key.name, key.state])).toEqual([
      ['Old', 'revoked'],
      ['Short-lived', 'expired'],
    ]);
    expect(expectFailure(await apiGet('/api/banks', expiring.secret), 401).message).toBe('Invalid API key');
  });

  test('revoke: the next API request with the key answers 401 Invalid API key', async () => {
    const { b } = await signedIn();
    const made = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'To revoke', permissions: ['read'] }),
    );
    expectSuccess(await apiGet('/api/banks', made.secret));
    const revoked = data<{ apiKey: ApiKeyEntry }>(
      await b.mutation('apiKeys.revoke', { apiKeyId: made.apiKey.id }),
    );
    expect(revoked.apiKey).toMatchObject({ state: 'revoked', revokedAt: clock.now().toISOString() });
    expect(expectFailure(await apiGet('/api/banks', made.secret), 401)).toEqual({
      message: 'Invalid API key',
    });
  });

  test('revoking twice: 409 with a clear message, the first revocation kept', async () => {
    const { b } = await signedIn();
    const made = data<CreatedApiKey>(
      await b.mutation('apiKeys.create', { name: 'Twice', permissions: ['read'] }),
    );
    data(await b.mutation('apiKeys.revoke', { apiKeyId: made.apiKey.id }));
    const firstRevocation = (await keyList(b))[0]?.revokedAt;
    clock.advance(60_000);
    expect(failure(await b.mutation('apiKeys.revoke', { apiKeyId: made.apiKey.id }), 409)).toMatchObject({
      code: 'API_KEY_ALREADY_REVOKED',
      message: 'This API key is already revoked',
    });
    expect((await keyList(b))[0]?.revokedAt).toBe(firstRevocation);
  });

  test("another organization's key: not found, and it keeps working", async () => {
    const { b } = await signedIn();
    const other = await factories.createMerchant();
    const refused = failure(await b.mutation('apiKeys.revoke', { apiKeyId: other.apiKeyId }), 404);
    expect(refused.message).toBe('API key not found');
    expectSuccess(await apiGet('/api/banks', other.apiKey));
    expect(await keyList(b)).toEqual([]);
  });

  test.each([
    [{ name: '', permissions: ['read'] }, 'name', 'is required'],
    [{ name: 'x'.repeat(101), permissions: ['read'] }, 'name', 'must be at most 100 characters'],
    [{ name: 'tab\there', permissions: ['read'] }, 'name', 'must not contain control characters'],
    [{ name: 'none', permissions: [] }, 'permissions', 'choose Read, Write or both'],
    [{ name: 'admin', permissions: ['admin'] }, 'permissions.0', 'must be one of: read, write'],
    [{ name: 'twice', permissions: ['read', 'read'] }, 'permissions', 'must not repeat a permission'],
    [
      { name: 'bad date', permissions: ['read'], expiresAt: 'tomorrow' },
      'expiresAt',
      'must be an ISO 8601 date-time',
    ],
    [
      { name: 'past', permissions: ['read'], expiresAt: '2020-01-01T00:00:00Z' },
      'expiresAt',
      'must be in the future',
    ],
  ])('create refuses %j with a detail on the field, nothing created', async (input, field, message) => {
    const { b } = await signedIn();
    const refused = failure(await b.mutation('apiKeys.create', input), 400);
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(refused.details).toContainEqual({ field, message });
    expect(await keyList(b)).toEqual([]);
  });
});

describe('last used: recorded off the hot path, at most one write per key per minute', () => {
  const lastUsed = async (apiKeyId: string) =>
    (await orm.em.fork().findOneOrFail(ApiKey, { id: apiKeyId })).lastUsedAt?.toISOString() ?? null;

  test('written on use, not again within the minute, again after it', async () => {
    const { apiKey, apiKeyId } = await factories.createMerchant();
    expect(await lastUsed(apiKeyId)).toBeNull();
    expectSuccess(await apiGet('/api/banks', apiKey));
    await settleKeyUseWrites();
    const first = clock.now().toISOString();
    expect(await lastUsed(apiKeyId)).toBe(first);

    clock.advance(30_000);
    expectSuccess(await apiGet('/api/banks', apiKey));
    await settleKeyUseWrites();
    expect(await lastUsed(apiKeyId)).toBe(first);
    // Another instance (which has not written this key) still does not write inside the minute.
    forgetKeyUseWrites();
    expectSuccess(await apiGet('/api/banks', apiKey));
    await settleKeyUseWrites();
    expect(await lastUsed(apiKeyId)).toBe(first);

    // A minute after this process last tried.
    clock.advance(61_000);
    expectSuccess(await apiGet('/api/banks', apiKey));
    await settleKeyUseWrites();
    expect(await lastUsed(apiKeyId)).toBe(clock.now().toISOString());
  });

  test('the request does not wait for the write: answered while the key row is locked', async () => {
    const { apiKey, apiKeyId } = await factories.createMerchant();
    const locker = orm.em.fork();
    await locker.begin();
    try {
      await locker.execute('select id from api_key where id = ? for update', [apiKeyId]);
      clock.advance(120_000);
      const started = performance.now();
      expectSuccess(await apiGet('/api/banks', apiKey));
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      await locker.rollback();
    }
    await settleKeyUseWrites();
    expect(await lastUsed(apiKeyId)).toBe(clock.now().toISOString());
  });
});

describe('issue 13 item 5: nothing of the organization is read before the key is proven', () => {
  type Lookup = { name?: string; text: string; values: unknown[] };

  /** The exact statement (text and values) the request sent for its key lookup. */
  async function keyLookupOf(request: () => Promise<unknown>): Promise<Lookup> {
    const pool = await orm.em.getConnection().getNativeClient();
    const spy = vi.spyOn(pool, 'query');
    let calls: unknown[][];
    try {
      await request();
    } finally {
      // Restoring clears the recorded calls: keep them first.
      calls = [...spy.mock.calls];
      spy.mockRestore();
    }
    const lookup = calls
      .map(([query]) => query as unknown as Lookup)
      .find((query) => typeof query === 'object' && query.name?.startsWith('api_key'));
    if (!lookup) throw new Error('the request made no key lookup');
    return lookup;
  }

  /** Replays a key lookup under EXPLAIN ANALYZE: how often each plan node on the payment table ran. */
  async function paymentReadsOf(lookup: Lookup): Promise<number[]> {
    const pool = await orm.em.getConnection().getNativeClient();
    const explained = await pool.query({
      text: `explain (analyze, format json) ${lookup.text}`,
      values: lookup.values,
    });
    const loops: number[] = [];
    const visit = (node: Record<string, unknown>) => {
      if (node['Relation Name'] === 'payment' || String(node['Index Name'] ?? '').startsWith('payment')) {
        loops.push(Number(node['Actual Loops']));
      }
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
    };
    visit((explained.rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {});
    return loops;
  }

  test('GET /payments/{id} with a real prefix and a wrong secret: no payment row is read', async () => {
    const merchant = await factories.createMerchant();
    const payment = await created(app, merchant.headers);
    const url = `/api/payments/${payment.paymentId}`;
    const wrongSecret = `${merchant.apiKey.slice(0, 17)}${'Z'.repeat(40)}`;
    const lookup = await keyLookupOf(async () =>
      expect(expectFailure(await apiGet(url, wrongSecret), 401).message).toBe('Invalid API key'),
    );
    const wrong = await paymentReadsOf(lookup);
    // The statement does name the payment table (the preload rides on the lookup) ...
    expect(wrong.length).toBeGreaterThan(0);
    // ... and with a wrong secret that part never ran.
    expect(wrong).toEqual(wrong.map(() => 0));
    // The control: the same statement with the right key's hash does read the payment. (The right
    // key's own GET may not run it: a key the process proved is taken from its cache.)
    const [, ...rest] = lookup.values;
    const right = await paymentReadsOf({ ...lookup, values: [hashApiKey(merchant.apiKey), ...rest] });
    expect(right.some((loops) => loops > 0)).toBe(true);
  });
});

// Each CLI run starts a Node process (seconds on a busy machine): a longer budget per test.
describe('operator CLI: key:list, key:revoke by id or by the key, user:create; never a secret', {
  timeout: 90_000,
}, () => {
  const { admin } = adminCli(databaseUrl);
  const json = oneJsonLine;

  test.concurrent('key:list shows id, name, prefix, permissions and state; key:revoke takes the key itself', async () => {
    const merchant = await factories.createMerchant();
    const listed = json(await admin('key:list', '--org', merchant.organizationId));
    const keys = listed.apiKeys as ApiKeyEntry[];
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      id: merchant.apiKeyId,
      prefix: merchant.apiKey.slice(0, 17),
      state: 'active',
    });
    expect(JSON.stringify(listed)).not.toContain(merchant.apiKey.slice(12));

    const revoked = await admin('key:revoke', '--key', merchant.apiKey);
    expect(json(revoked)).toEqual({ apiKeyId: merchant.apiKeyId, revoked: true });
    expect(revoked.stdout + revoked.stderr).not.toContain(merchant.apiKey.slice(12));
    expect(expectFailure(await apiGet('/api/banks', merchant.apiKey), 401).message).toBe('Invalid API key');

    const again = await admin('key:revoke', '--key', merchant.apiKey);
    expect(again).toMatchObject({ code: 2, stdout: '' });
    expect(again.stderr).toContain('This API key is already revoked');
    expect(again.stderr).not.toContain(merchant.apiKey.slice(12));
  });

  test.concurrent('a key that does not exist, or pasted where it does not belong, is never echoed', async () => {
    const secret = `pis_${'Q'.repeat(48)}`;
    for (const args of [
      ['key:revoke', '--key', secret],
      ['key:revoke', secret],
      ['key:list', '--org', secret],
      ['key:revoke', `--key=${secret}`, '--extra', secret],
    ]) {
      const result = await admin(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout + result.stderr).not.toContain('Q'.repeat(20));
    }
  });

  test.concurrent('user:create gives a generated password once, and the user can sign in', async () => {
    const organizationId = await factories.createOrg({ name: 'Team Ltd' });
    const made = json(
      await admin('user:create', '--org', organizationId, '--email', 'Second.User@Team.example'),
    );
    expect(Object.keys(made).sort()).toEqual(['password', 'userId']);
    const b = new DashboardBrowser(app, '192.0.2.250');
    const session = await b.signIn('second.user@team.example', String(made.password));
    expect(session).toMatchObject({
      user: { id: made.userId },
      organization: { id: organizationId, name: 'Team Ltd' },
    });

    const chosen = json(
      await admin(
        'user:create',
        '--org',
        organizationId,
        '--email',
        'third@team.example',
        '--password',
        'a long chosen passphrase',
      ),
    );
    expect(chosen.password).toBe('a long chosen passphrase');

    for (const [args, message] of [
      [['--email', 'SECOND.user@team.example'], 'is already registered'],
      [['--email', 'not-an-email'], 'must be a valid email address'],
      [['--email', 'x@team.example', '--password', 'short'], 'must be at least 12 characters'],
      // Sign-up's strength rule, with the organization's name and the email as the person's words.
      [['--email', 'x@team.example', '--password', 'teamltdteamltd'], 'password: is too easy to guess'],
      [['--email', 'x@team.example', '--password', 'passwordpassword'], 'password: is too easy to guess'],
    ] as const) {
      const refused = await admin('user:create', '--org', organizationId, ...args);
      expect(refused, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toContain(message);
    }
    const missingOrg = await admin('user:create', '--org', 'org_missing', '--email', 'y@team.example');
    expect(missingOrg.stderr).toContain('Organization not found');
  });

  test.concurrent("org:set-limits lifts a sign-up's reduced budgets and sets the operator's numbers", async () => {
    const { session } = await signedIn();
    const organizationId = session.organization.id;
    const row = async () =>
      (
        await orm.em
          .fork()
          .getConnection()
          .execute(
            'select reduced_budgets, budget_api_reads, budget_api_writes, budget_waits from organization where id = ?',
            [organizationId],
          )
      )[0];
    expect(await row()).toEqual({
      reduced_budgets: true,
      budget_api_reads: null,
      budget_api_writes: null,
      budget_waits: null,
    });
    // The defaults of the CLI's own environment: 600 reads, 120 writes, 100 waits.
    expect(json(await admin('org:set-limits', '--org', organizationId, '--api-reads', '5000'))).toEqual({
      organizationId,
      apiReads: 5000,
      apiWrites: 120,
      waits: 100,
    });
    expect(await row()).toEqual({
      reduced_budgets: false,
      budget_api_reads: 5000,
      budget_api_writes: null,
      budget_waits: null,
    });
    for (const args of [
      ['--waits', '-1'],
      ['--api-writes', '1.5'],
      ['--api-reads', 'lots'],
    ]) {
      const refused = await admin('org:set-limits', '--org', organizationId, ...args);
      expect(refused, args.join(' ')).toMatchObject({ code: 2, stdout: '' });
    }
    expect((await admin('org:set-limits', '--org', 'org_missing')).stderr).toContain(
      'Organization not found',
    );
  });
});
