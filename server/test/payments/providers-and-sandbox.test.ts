import { describe, expect, test } from 'vitest';
import { Payment } from '../../src/db/entities/index.ts';
import { defaultProviderRegistry } from '../../src/providers/default-providers.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectFailure, expectSuccess, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import {
  created,
  createPayment,
  HOUR,
  type PaymentData,
  paymentBody,
  post,
  readPayment,
  statuses,
} from './payment-fixtures.ts';
import { controllableProvider } from './test-provider.ts';

const flaky = controllableProvider('flaky');
const { app, factories, clock, orm, config } = await createTestApp({
  providers: createProviderRegistry([createMockProvider(testConfig()), flaky.provider]),
});
const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'flaky');
const { headers } = merchant;

const flakyPayment = async () => {
  flaky.state.down = false;
  flaky.state.rejectedAtBank = false;
  return created(app, headers, paymentBody({ provider: 'flaky' }));
};

describe('a provider behind the adapter interface', () => {
  test('the registry knows the Mock bank by default; codes must be unique', async () => {
    expect((await defaultProviderRegistry(config)).codes()).toEqual(['mock']);
    expect(() => createProviderRegistry([flaky.provider, flaky.provider])).toThrow();
  });

  test('GET /payments/providers lists mock and the approved provider that has an adapter', async () => {
    const data = expectSuccess<{ providers: { id: string }[] }>(
      await app.inject({ method: 'GET', url: '/api/payments/providers', headers }),
    );
    expect(data.providers.map((provider) => provider.id)).toEqual(['mock', 'flaky']);
  });

  test("create hands the payment to the provider and answers the provider's own link", async () => {
    const data = await flakyPayment();
    expect(data).toMatchObject({
      status: 'AUTHORIZING',
      provider: 'flaky',
      redirectUrl: `https://bank.example/authorise/${data.paymentId}`,
    });
  });

  test('create while the provider is down: 502 PROVIDER_UNAVAILABLE and nothing stored', async () => {
    const before = await orm.em.fork().count(Payment, {});
    flaky.state.down = true;
    const error = expectFailure(await createPayment(app, headers, paymentBody({ provider: 'flaky' })), 502);
    expect(error.code).toBe('PROVIDER_UNAVAILABLE');
    expect(await orm.em.fork().count(Payment, {})).toBe(before);
  });

  test('sync reports a provider failure (502) and changes nothing; GET swallows it', async () => {
    const { paymentId } = await flakyPayment();
    flaky.state.down = true;
    const error = expectFailure(await post(app, headers, `/api/payments/${paymentId}/sync`), 502);
    expect(error).toEqual({
      code: 'PROVIDER_UNAVAILABLE',
      message:
        'The payment provider could not be reached, so the payment was not refreshed. Try again shortly.',
    });
    const payment = await readPayment(app, headers, paymentId);
    expect(payment.status).toBe('AUTHORIZING');
    expect(flaky.state.calls.at(-1)).toBe('status');
  });

  test('GET with the provider down still applies what is ours to decide (expiry)', async () => {
    const { paymentId } = await flakyPayment();
    flaky.state.down = true;
    clock.advance(24 * HOUR);
    expect((await readPayment(app, headers, paymentId)).status).toBe('EXPIRED');
  });

  test("the provider's news is applied on GET and sync", async () => {
    const viaGet = (await flakyPayment()).paymentId;
    const viaSync = (await flakyPayment()).paymentId;
    flaky.state.rejectedAtBank = true;
    const got = await readPayment(app, headers, viaGet);
    expect(got).toMatchObject({ status: 'FAILED', error: { code: 'AM04' } });
    const synced = expectSuccess<PaymentData>(await post(app, headers, `/api/payments/${viaSync}/sync`));
    expect(statuses(synced)).toEqual(['PENDING', 'AUTHORIZING', 'FAILED']);
  });

  test('cancel tells the provider; when it cannot be reached the cancel is 502 and nothing changes', async () => {
    const { paymentId } = await flakyPayment();
    flaky.state.down = true;
    expect(expectFailure(await post(app, headers, `/api/payments/${paymentId}/cancel`), 502).code).toBe(
      'PROVIDER_UNAVAILABLE',
    );
    expect((await readPayment(app, headers, paymentId)).status).toBe('AUTHORIZING');
    flaky.state.down = false;
    expect(
      expectSuccess<PaymentData>(await post(app, headers, `/api/payments/${paymentId}/cancel`)).status,
    ).toBe('CANCELLED');
    expect(flaky.state.calls.at(-1)).toBe('cancel');
  });
});

describe('sandbox helpers', () => {
  const approve = (id: string, body: Record<string, unknown> = {}) =>
    post(app, headers, `/api/payments/${id}/mock-bank/approve`, body);
  const reject = (id: string, body: Record<string, unknown> = {}) =>
    post(app, headers, `/api/payments/${id}/mock-bank/reject`, body);

  test('approve: the given timing, else the request scenario, else instant', async () => {
    const given = (await created(app, headers, paymentBody({ mockBank: { preset: 'slow' } }))).paymentId;
    const withPreset = expectSuccess<PaymentData>(await approve(given, { completeAfterSeconds: 3 }));
    expect(withPreset.status).toBe('AUTHORIZED');
    clock.advance(3000);
    expect((await readPayment(app, headers, given)).status).toBe('COMPLETED');

    const requested = (await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } })))
      .paymentId;
    expect(expectSuccess<PaymentData>(await approve(requested)).status).toBe('AUTHORIZED');

    const plain = (await created(app, headers)).paymentId;
    expect(expectSuccess<PaymentData>(await approve(plain)).status).toBe('COMPLETED');
  });

  test('a body without content type or with an empty object works; bad scenarios are 400', async () => {
    const id = (await created(app, headers)).paymentId;
    for (const body of [{ preset: 'fast' }, { completeAfterSeconds: 0 }, { completeAfterSeconds: 3601 }]) {
      expectValidationFailed(await approve(id, body));
    }
    expectValidationFailed(await reject(id, { reason: 'NOAS' }));
    expect(
      expectSuccess<PaymentData>(await post(app, headers, `/api/payments/${id}/mock-bank/reject`)).status,
    ).toBe('FAILED');
  });

  test('Mock payments only: 400 MOCK_BANK_ONLY for another provider', async () => {
    const { paymentId } = await flakyPayment();
    for (const response of [await approve(paymentId), await reject(paymentId)]) {
      expect(expectFailure(response, 400).code).toBe('MOCK_BANK_ONLY');
    }
  });

  test('a hosted payment whose customer has not chosen a bank: 409 BANK_NOT_CHOSEN', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    for (const response of [await approve(paymentId), await reject(paymentId)]) {
      expect(expectFailure(response, 409).code).toBe('BANK_NOT_CHOSEN');
    }
  });

  test('a decided payment: 409 PAYMENT_ALREADY_DECIDED, unchanged', async () => {
    const approved = (await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } })))
      .paymentId;
    await approve(approved);
    const rejected = (await created(app, headers)).paymentId;
    await reject(rejected);
    const expired = (await created(app, headers)).paymentId;
    clock.advance(24 * HOUR);
    for (const id of [approved, rejected, expired]) {
      const before = await readPayment(app, headers, id);
      for (const response of [await approve(id), await reject(id)]) {
        expect(expectFailure(response, 409).code).toBe('PAYMENT_ALREADY_DECIDED');
      }
      expect(await readPayment(app, headers, id)).toEqual(before);
    }
  });

  test('documented under their own tag, behind the API key', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    for (const path of [
      '/payments/{paymentId}/mock-bank/approve',
      '/payments/{paymentId}/mock-bank/reject',
    ]) {
      const operation = document.paths[path].post;
      expect(operation.tags).toEqual(['Sandbox']);
      expect(operation.security).toEqual([{ ApiKeyAuth: [] }]);
    }
    expect(document.paths['/payments/{paymentId}/sync'].post.responses).toHaveProperty('502');
  });
});
