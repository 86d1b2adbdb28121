import { describe, expect, test } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key-secret.ts';
import { createKey } from '../../src/cli/admin-actions.ts';
import { ApiKey, Payment } from '../../src/db/entities/index.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
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
