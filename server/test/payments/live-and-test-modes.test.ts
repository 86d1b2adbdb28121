import { randomUUID } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key-secret.ts';
import { createKey } from '../../src/cli/admin-actions.ts';
import { ApiKey, DashboardUser, Payment } from '../../src/db/entities/index.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { DashboardBrowser, data, failure } from '../dashboard/dashboard-browser.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, createPayment, getPayment, paymentBody, post } from './payment-fixtures.ts';
import { controllableProvider } from './test-provider.ts';

/**
 * Live and test modes (issue 19 item 5): a key's mode is in its prefix and its row, a payment
 * carries the mode of the key that made it, and a key sees only its own mode's payments on every
 * endpoint. Practice banks take only test payments. `real` stands in for a real provider (a bank
 * that is no practice bank), since only practice banks exist on this machine.
 */
const real = controllableProvider('real');
const { app, factories, orm, clock } = await createTestApp({
  providers: createProviderRegistry([createMockProvider(testConfig()), real.provider]),
});
const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'real');
await factories.approveProvider(merchant.organizationId, 'obie');
const testKey = merchant.headers;
const live = await createKey(
  orm.em.fork(),
  {
    organizationId: merchant.organizationId,
    permissions: { read: true, write: true },
    mode: 'live',
  },
  clock,
);
const liveKey = { 'x-api-key': live.apiKey };

const testPayment = await created(app, testKey, paymentBody());
const livePayment = await created(app, liveKey, paymentBody({ provider: 'real' }));

describe('keys have a mode', () => {
  test('test by default, live when the operator says so; the prefix says which', async () => {
    expect(merchant.apiKey).toMatch(/^pis_test_[0-9A-Za-z]{48}$/);
    expect(live.apiKey).toMatch(/^pis_live_[0-9A-Za-z]{48}$/);
    expect(live.mode).toBe('live');
    const rows = await orm.em.fork().find(ApiKey, { organization: merchant.organizationId });
    expect(rows.map((row) => [row.prefix.slice(0, 9), row.mode]).sort()).toEqual([
      ['pis_live_', 'live'],
      ['pis_test_', 'test'],
    ]);
  });

  test('a live key for an organization approved for no real provider is refused', async () => {
    const mockOnly = await factories.createOrg();
    await expect(
      createKey(
        orm.em.fork(),
        { organizationId: mockOnly, permissions: { read: true, write: true }, mode: 'live' },
        clock,
      ),
    ).rejects.toThrow(/approved for a real provider/);
    expect(await orm.em.fork().count(ApiKey, { organization: mockOnly })).toBe(0);
  });

  test('a key made before modes (pis_ + 48) still works, as a test key', async () => {
    const { apiKeyId } = await factories.createKey(merchant.organizationId, 'read,write');
    const old = `pis_${'a1B2c3D4'.repeat(6)}`;
    await orm.em
      .fork()
      .nativeUpdate(ApiKey, { id: apiKeyId }, { keyHash: hashApiKey(old), prefix: old.slice(0, 12) });
    const oldKey = { 'x-api-key': old };
    expect((await getPayment(app, oldKey, testPayment.paymentId)).statusCode).toBe(200);
    expectFailure(await getPayment(app, oldKey, livePayment.paymentId), 404);
  });
});

describe('payments carry the mode of their key', () => {
  test('stored with it', async () => {
    const stored = await orm.em
      .fork()
      .find(Payment, { id: { $in: [testPayment.paymentId, livePayment.paymentId] } });
    const modes = Object.fromEntries(stored.map((payment) => [payment.id, payment.mode]));
    expect(modes).toEqual({ [testPayment.paymentId]: 'test', [livePayment.paymentId]: 'live' });
  });

  test("a live key's create without a provider, or at a practice bank, is 400 PRACTICE_BANK_TEST_ONLY and stores nothing", async () => {
    const before = await orm.em.fork().count(Payment, {});
    for (const body of [
      paymentBody(),
      paymentBody({ provider: 'mock', flowType: 'HOSTED_PAGES' }),
      paymentBody({ provider: 'obie', bankId: 'obie-sandbox-bank' }),
      paymentBody({ provider: 'real', bankId: 'obie-sandbox-bank' }),
    ]) {
      const error = expectFailure(await createPayment(app, liveKey, body), 400);
      expect(error.code).toBe('PRACTICE_BANK_TEST_ONLY');
    }
    expect(await orm.em.fork().count(Payment, {})).toBe(before);
  });
});

describe('a key sees only its own mode', () => {
  const pairs = [
    { key: testKey, own: testPayment.paymentId, other: livePayment.paymentId },
    { key: liveKey, own: livePayment.paymentId, other: testPayment.paymentId },
  ];

  test('GET: the other mode is 404', async () => {
    for (const { key, own, other } of pairs) {
      expect((await getPayment(app, key, own)).statusCode).toBe(200);
      const error = expectFailure(await getPayment(app, key, other), 404);
      expect(error.message).toBe('Payment not found');
    }
  });

  test('a waiting read: the other mode is 404 at once', async () => {
    for (const { key, other } of pairs) {
      const answer = await app.inject({
        method: 'GET',
        url: `/api/payments/${other}`,
        headers: { ...key, 'if-none-match': '"x"', prefer: 'wait=1' },
      });
      expectFailure(answer, 404);
    }
  });

  test('sync, link and cancel: the other mode is 404 and nothing changes', async () => {
    for (const { key, other } of pairs) {
      for (const action of ['sync', 'link', 'cancel']) {
        expectFailure(await post(app, key, `/api/payments/${other}/${action}`), 404);
      }
    }
    const stored = await orm.em
      .fork()
      .find(Payment, { id: { $in: [testPayment.paymentId, livePayment.paymentId] } });
    expect(stored.map((payment) => payment.status)).not.toContain('CANCELLED');
  });

  test('the Mock bank sandbox helpers: the other mode is 404', async () => {
    expectFailure(
      await post(app, liveKey, `/api/payments/${testPayment.paymentId}/mock-bank/approve`, {}),
      404,
    );
  });

  test('lists and their totals, with and without filters', async () => {
    for (const { key, own, other } of pairs) {
      for (const query of ['', '?status=AUTHORIZING', `?search=${own}`, '?currency=GBP']) {
        const list = expectSuccess<{ payments: { paymentId: string }[]; total: number }>(
          await app.inject({ method: 'GET', url: `/api/payments${query}`, headers: key }),
        );
        const ids = list.payments.map((payment) => payment.paymentId);
        expect(ids, query).toContain(own);
        expect(ids, query).not.toContain(other);
        expect(list.total, query).toBe(ids.length);
      }
      const searched = expectSuccess<{ payments: unknown[]; total: number }>(
        await app.inject({ method: 'GET', url: `/api/payments?search=${other}`, headers: key }),
      );
      expect(searched).toMatchObject({ payments: [], total: 0 });
    }
  });

  test('the CSV export', async () => {
    for (const { key, own, other } of pairs) {
      const answer = await app.inject({ method: 'GET', url: '/api/payments/export', headers: key });
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toContain(own);
      expect(answer.body).not.toContain(other);
    }
  });

  test('an Idempotency-Key is per mode: the same key in the other mode is a new request of that mode', async () => {
    // Issue 31 item 3: keys were per organization only, so a live key replaying a test key's
    // Idempotency-Key was answered the test payment's 201 with its customer link (or a 409).
    for (const [first, second] of [
      [
        { key: testKey, body: paymentBody() },
        { key: liveKey, body: paymentBody({ provider: 'real' }) },
      ],
      [
        { key: liveKey, body: paymentBody({ provider: 'real' }) },
        { key: testKey, body: paymentBody() },
      ],
    ] as const) {
      const idempotencyKey = `order-${randomUUID()}`;
      const one = await created(app, { ...first.key, 'idempotency-key': idempotencyKey }, first.body);
      const other = await created(app, { ...second.key, 'idempotency-key': idempotencyKey }, second.body);
      expect(other.paymentId).not.toBe(one.paymentId);
      expect(other.redirectUrl).not.toBe(one.redirectUrl);
      const stored = await orm.em.fork().find(Payment, { id: { $in: [one.paymentId, other.paymentId] } });
      expect(new Set(stored.map((payment) => payment.mode)).size).toBe(2);
      // Within each mode the key still answers its own first payment.
      for (const [side, payment] of [
        [first, one],
        [second, other],
      ] as const) {
        const again = await created(app, { ...side.key, 'idempotency-key': idempotencyKey }, side.body);
        expect(again.paymentId).toBe(payment.paymentId);
      }
    }
  });

  test('in the same mode everything works as before', async () => {
    const synced = expectSuccess<{ status: string }>(
      await post(app, liveKey, `/api/payments/${livePayment.paymentId}/sync`),
    );
    expect(synced.status).toBe('AUTHORIZING');
    const cancelled = expectSuccess<{ status: string }>(
      await post(app, liveKey, `/api/payments/${livePayment.paymentId}/cancel`),
    );
    expect(cancelled.status).toBe('CANCELLED');
  });
});

describe("the dashboard's test/live switch", () => {
  test('a session starts on test data; live needs a verified address; the list follows the switch', async () => {
    const b = new DashboardBrowser(app, '192.0.2.77');
    const signedUp = await b.signUp();
    expect(signedUp.mode).toBe('test');
    const organizationId = signedUp.organization.id;
    await factories.approveProvider(organizationId, 'real');
    const testKey = { 'x-api-key': (await factories.createKey(organizationId)).apiKey };
    const testOne = await created(app, testKey, paymentBody());
    const liveOne = await created(
      app,
      {
        'x-api-key': (
          await createKey(
            orm.em.fork(),
            { organizationId, permissions: { read: true, write: true }, mode: 'live' },
            clock,
          )
        ).apiKey,
      },
      paymentBody({ provider: 'real' }),
    );
    const listed = async () =>
      data<{ payments: { paymentId: string }[]; total: number }>(await b.query('payments.list', {}));

    expect((await listed()).payments.map((p) => p.paymentId)).toEqual([testOne.paymentId]);
    expect(failure(await b.mutation('account.setMode', { mode: 'live' }), 403).message).toMatch(
      /Verify your email/,
    );

    await orm.em
      .fork()
      .nativeUpdate(DashboardUser, { id: signedUp.user.id }, { emailVerifiedAt: clock.now() });
    expect(data<{ mode: string }>(await b.mutation('account.setMode', { mode: 'live' })).mode).toBe('live');
    expect(data<{ mode: string }>(await b.query('account.session')).mode).toBe('live');
    expect(await listed()).toMatchObject({ payments: [{ paymentId: liveOne.paymentId }], total: 1 });
    failure(await b.query('payments.get', { paymentId: testOne.paymentId }), 404);

    data(await b.mutation('account.setMode', { mode: 'test' }));
    expect(await listed()).toMatchObject({ payments: [{ paymentId: testOne.paymentId }], total: 1 });
  });

  test("the overview's counts and volumes are the session's mode's", async () => {
    const b = new DashboardBrowser(app, '192.0.2.78');
    const signedUp = await b.signUp();
    const organizationId = signedUp.organization.id;
    await orm.em
      .fork()
      .nativeUpdate(DashboardUser, { id: signedUp.user.id }, { emailVerifiedAt: clock.now() });
    await factories.approveProvider(organizationId, 'real');
    const testKey = { 'x-api-key': (await factories.createKey(organizationId)).apiKey };
    const liveKey = {
      'x-api-key': (
        await createKey(
          orm.em.fork(),
          { organizationId, permissions: { read: true, write: true }, mode: 'live' },
          clock,
        )
      ).apiKey,
    };
    const testOne = await created(app, testKey, paymentBody());
    expectSuccess(await post(app, testKey, `/api/payments/${testOne.paymentId}/mock-bank/approve`, {}));
    const liveOne = await created(app, liveKey, paymentBody({ provider: 'real' }));
    expectSuccess(await post(app, liveKey, `/api/payments/${liveOne.paymentId}/cancel`));

    type Overview = { countsByStatus: Record<string, number>; volume: { count: number; value: string }[] };
    const overview = async () => data<Overview>(await b.query('overview'));
    const inTest = await overview();
    expect(inTest.countsByStatus).toMatchObject({ COMPLETED: 1, CANCELLED: 0 });
    expect(inTest.volume).toEqual([expect.objectContaining({ count: 1, value: '10.50' })]);
    data(await b.mutation('account.setMode', { mode: 'live' }));
    const inLive = await overview();
    expect(inLive.countsByStatus).toMatchObject({ COMPLETED: 0, CANCELLED: 1 });
    expect(inLive.volume).toEqual([]);
  });
});
