import pg from 'pg';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { buildApp } from '../../src/app.ts';
import {
  createApiKeyCache,
  KEY_CACHE_TTL_MS,
  type ProvenKey,
  startApiKeyCache,
} from '../../src/auth/api-key-cache.ts';
import { revokeApiKey } from '../../src/auth/api-keys.ts';
import { ANY_KEY, CHANNELS, type Notifications, startNotifications } from '../../src/db/notifications.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { approveProvider } from '../../src/organizations/organization-admin.ts';
import { setAllowedReturnOrigins } from '../../src/organizations/return-origins.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';

/**
 * The API key cache (auth/api-key-cache.ts) on a real database, with two instances of the
 * service on it, each with its own pool, listening connection and cache, as two processes.
 * (A revocation on the dashboard is refused by the same process at once: the dashboard's own
 * test asks right after revoking, with the cache on.)
 */
const first = await createTestApp({ keyCache: true });
const { factories, orm, clock, config, databaseUrl } = first;

const otherOrm = await openOrm(databaseUrl, { poolMax: 2 });
const otherNotifications = startNotifications({ databaseUrl, logger: silentLogger() });
const otherCache = await startApiKeyCache(otherNotifications);
const other = await buildApp({ config, orm: otherOrm, clock, apiKeyCache: otherCache });
await other.ready();
// A third, counting rate limits (the default), sharing the second's cache and connection.
const counting = await buildApp({
  config: { ...config, rateLimits: { ...config.rateLimits, enabled: true } },
  orm: otherOrm,
  clock,
  apiKeyCache: otherCache,
});
await counting.ready();
afterAll(async () => {
  await other.close();
  await counting.close();
  await otherNotifications.close();
  await otherOrm.close();
});

const banks = (app: typeof other, apiKey: string) =>
  app.inject({ method: 'GET', url: '/api/banks', headers: { 'x-api-key': apiKey } });

/** A create on the second instance (its cache), with `fields` added to a plain payment. */
const createOnOther = (headers: Record<string, string>, fields: Record<string, string>) =>
  other.inject({
    method: 'POST',
    url: '/api/payments',
    headers,
    payload: {
      amount: { value: '1.00', currency: 'GBP' },
      toAccount: { accountName: 'Cache Ltd', sortCode: '040004', accountNumber: '12345678' },
      reference: 'cache',
      ...fields,
    },
  });

/** Resolves when `notifications` hears `api_key_changed` for the organization. */
function heard(notifications: Notifications, organizationId: string, ms = 2_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no api_key_changed within ${ms} ms`)), ms);
    const unsubscribe = notifications.subscribe(CHANNELS.apiKeyChanged, organizationId, () => {
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}

/** SQL as an operator would run it, on a connection of its own; `quietly`: with triggers off. */
async function operatorSql(sql: string, values: unknown[], quietly = false): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    if (quietly) await client.query(`set session_replication_role = replica`);
    await client.query(sql, values);
  } finally {
    await client.end();
  }
}

describe('the API key cache across two instances', () => {
  test('a proved key is served from the cache: a change made with the triggers off goes unseen', async () => {
    const merchant = await factories.createMerchant();
    expectSuccess(await banks(other, merchant.apiKey));
    // Revoked behind the triggers' back (no notification): the cache still holds the key, which
    // shows the request read no key. Every real write path fires the triggers (next tests).
    await operatorSql('update api_key set revoked_at = now() where id = $1', [merchant.apiKeyId], true);
    expectSuccess(await banks(other, merchant.apiKey));
    // A key never proved by an instance is read from the database: refused.
    expectFailure(await banks(first.app, merchant.apiKey), 401);
  });

  test('revoked in one process: refused by the other once it hears the commit, in milliseconds', async () => {
    const merchant = await factories.createMerchant();
    expectSuccess(await banks(other, merchant.apiKey));
    const told = heard(otherNotifications, merchant.organizationId);
    const revokedAt = performance.now();
    // As the operator CLI does, in its own transaction: no call into the other instance.
    await revokeApiKey(orm.em.fork(), { apiKeyId: merchant.apiKeyId }, clock);
    await told;
    const delayMs = performance.now() - revokedAt;
    expect(expectFailure(await banks(other, merchant.apiKey), 401).message).toBe('Invalid API key');
    expect(delayMs).toBeLessThan(1_000);
  });

  test('a request that counts reads its key afresh: revoked is refused before anyone hears it', async () => {
    const merchant = await factories.createMerchant();
    expectSuccess(await banks(counting, merchant.apiKey));
    // Behind the triggers' back, so no instance can have heard of it.
    await operatorSql('update api_key set revoked_at = now() where id = $1', [merchant.apiKeyId], true);
    expectFailure(await banks(counting, merchant.apiKey), 401);
    // A GET that counts too, though its key is in the shared cache.
    const read = await counting.inject({
      method: 'GET',
      url: '/api/payments/pay_0000000000000000000000',
      headers: merchant.headers,
    });
    expectFailure(read, 401);
  });

  test("a GET by a cached key reads the payment alone, still within the key's organization", async () => {
    const owner = await factories.createMerchant();
    const stranger = await factories.createMerchant();
    const created = expectSuccess<{ paymentId: string }>(await createOnOther(owner.headers, {}), 201);
    expectSuccess(await banks(other, stranger.apiKey));
    const read = (headers: Record<string, string>) =>
      other.inject({ method: 'GET', url: `/api/payments/${created.paymentId}`, headers });
    // Both keys are cached now (the owner's by its create): neither GET runs the key lookup.
    const pool = await otherOrm.em.getConnection().getNativeClient();
    const statements = vi.spyOn(pool, 'query');
    try {
      expect(expectSuccess<{ paymentId: string }>(await read(owner.headers)).paymentId).toBe(
        created.paymentId,
      );
      expect(expectFailure(await read(stranger.headers), 404).message).toBe('Payment not found');
      const names = statements.mock.calls.map(([query]) => (query as unknown as { name?: string }).name);
      expect(names.filter((name) => name?.startsWith('payment_read_in_mode'))).toHaveLength(2);
      expect(names.filter((name) => name?.startsWith('api_key'))).toEqual([]);
    } finally {
      statements.mockRestore();
    }
  });

  test('an organization deactivated by SQL: 403 from the other instance once heard', async () => {
    const merchant = await factories.createMerchant();
    expectSuccess(await banks(other, merchant.apiKey));
    const told = heard(otherNotifications, merchant.organizationId);
    await operatorSql('update organization set active = false where id = $1', [merchant.organizationId]);
    await told;
    expect(expectFailure(await banks(other, merchant.apiKey), 403).message).toBe(
      'Organization is not active',
    );
  });

  test('a provider approved later: the cached caller learns it once heard', async () => {
    const merchant = await factories.createMerchant();
    const createWithAcme = async () =>
      (await createOnOther(merchant.headers, { provider: 'acme_bank' })).json().error.code;
    expect(await createWithAcme()).toBe('PROVIDER_NOT_APPROVED');
    const told = heard(otherNotifications, merchant.organizationId);
    await approveProvider(orm.em.fork(), merchant.organizationId, 'acme_bank', clock);
    await told;
    // Approved now (acme_bank has no adapter here, so the create still fails, for that reason).
    expect(await createWithAcme()).not.toBe('PROVIDER_NOT_APPROVED');
  });

  test('return origins set later: the cached caller checks a create against them once heard', async () => {
    const merchant = await factories.createMerchant();
    const createReturningTo = (redirectUrl: string) => createOnOther(merchant.headers, { redirectUrl });
    expect((await createReturningTo('https://elsewhere.example/back')).statusCode).toBe(201);
    const told = heard(otherNotifications, merchant.organizationId);
    // As the dashboard's settings page does, in this process: the other one only hears of it.
    await setAllowedReturnOrigins(orm.em.fork(), merchant.organizationId, ['https://shop.example']);
    await told;
    const refused = expectFailure(await createReturningTo('https://elsewhere.example/back'), 400);
    expect(refused.code).toBe('VALIDATION_FAILED');
    expect(refused.details?.map((detail) => detail.field)).toEqual(['redirectUrl']);
    expect((await createReturningTo('https://shop.example/back')).statusCode).toBe(201);
  });

  test('the triggers: keys, organizations and approvals notify their organization; last use and names do not', async () => {
    const merchant = await factories.createMerchant();
    const received: string[] = [];
    const unsubscribe = otherNotifications.subscribe(CHANNELS.apiKeyChanged, ANY_KEY, (key) =>
      received.push(key),
    );
    await operatorSql('update api_key set last_used_at = now() where id = $1', [merchant.apiKeyId]);
    await operatorSql(`update organization set name = 'Renamed' where id = $1`, [merchant.organizationId]);
    const told = heard(otherNotifications, merchant.organizationId);
    await operatorSql('update api_key set can_write = false where id = $1', [merchant.apiKeyId]);
    await told;
    expect(received).toEqual([merchant.organizationId]);
    unsubscribe();
    // A key moved to another organization: the old one's caches hold it, so both are told.
    const elsewhere = await factories.createOrg();
    const both = [heard(otherNotifications, merchant.organizationId), heard(otherNotifications, elsewhere)];
    await operatorSql('update api_key set organization_id = $2 where id = $1', [
      merchant.apiKeyId,
      elsewhere,
    ]);
    await Promise.all(both);
    const deleted = heard(otherNotifications, elsewhere);
    await operatorSql('delete from api_key where id = $1', [merchant.apiKeyId]);
    await deleted;
  });

  test('while the listening connection is down nothing is served from the cache, and after it nothing from before', async () => {
    const merchant = await factories.createMerchant();
    expectSuccess(await banks(other, merchant.apiKey));
    const before = otherNotifications.connection();
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and (query ilike 'listen%' or query ilike '%pis_heartbeat%') and pid <> pg_backend_pid()`,
    );
    await admin.end();
    // Revoked while nobody listens (the notification is lost)...
    await operatorSql('update api_key set revoked_at = now() where id = $1', [merchant.apiKeyId]);
    const deadline = Date.now() + 5_000;
    while (otherNotifications.connection() === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(otherNotifications.connection()).not.toBe(before);
    // ...yet refused, whether the connection is still down or already back.
    expectFailure(await banks(other, merchant.apiKey), 401);
  });
});

describe('a TRUNCATE (last: it empties the tables)', () => {
  test('fires no row trigger, so it tells every cache to empty itself', async () => {
    const merchant = await factories.createMerchant();
    expectSuccess(await banks(other, merchant.apiKey));
    const told = heard(otherNotifications, '');
    await operatorSql('truncate api_key cascade', []);
    await told;
    expectFailure(await banks(other, merchant.apiKey), 401);
  });
});

describe('the cache on its own', () => {
  const key = (organizationId: string): ProvenKey => ({
    id: `key_${organizationId}`,
    can_read: true,
    can_write: true,
    expires_at: null,
    mode: 'test',
    organization_id: organizationId,
    providers: [],
    reduced_budgets: false,
    budget_api_reads: null,
    budget_api_writes: null,
    budget_waits: null,
    allowed_return_origins: null,
  });

  test('a put after an invalidation it may predate is dropped (the read raced a revocation)', () => {
    const cache = createApiKeyCache(() => 1);
    const generation = cache.generation();
    cache.dropOrganization('org_a');
    cache.put('hash_a', key('org_a'), generation);
    expect(cache.get('hash_a')).toBeUndefined();
    cache.put('hash_a', key('org_a'), cache.generation());
    expect(cache.get('hash_a')).toEqual(key('org_a'));
  });

  test("drops only the organization's keys; holds nothing without a connection; not past its TTL", () => {
    let connection: number | undefined = 1;
    let now = 0;
    const cache = createApiKeyCache(
      () => connection,
      () => now,
    );
    cache.put('hash_a', key('org_a'), cache.generation());
    cache.put('hash_b', key('org_b'), cache.generation());
    cache.dropOrganization('org_a');
    expect(cache.get('hash_a')).toBeUndefined();
    expect(cache.get('hash_b')).toEqual(key('org_b'));

    connection = undefined;
    expect(cache.get('hash_b')).toBeUndefined();
    cache.put('hash_c', key('org_c'), cache.generation());
    connection = 2;
    expect(cache.get('hash_c')).toBeUndefined();

    cache.put('hash_d', key('org_d'), cache.generation());
    now += KEY_CACHE_TTL_MS - 1;
    expect(cache.get('hash_d')).toEqual(key('org_d'));
    now += 1;
    expect(cache.get('hash_d')).toBeUndefined();
  });
});
