import { setTimeout as sleep } from 'node:timers/promises';
import { type AppError, CreatePaymentInput } from '@pis/shared';
import { describe, expect, test, vi } from 'vitest';
import { IdempotencyKey, Payment } from '../../src/db/entities/index.ts';
import type { EntityManager } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { createPayment as createPaymentDirectly } from '../../src/payments/create-payment.ts';
import {
  ABANDONED_CLAIM_MS,
  claimIdempotencyKey,
  dropIdempotencyClaim,
  purgeExpiredIdempotencyKeys,
  SETTLE_RETRY_MS,
  SETTLING_AT_MOST,
  settleFailedClaim,
  stopSettlingClaims,
} from '../../src/payments/idempotency.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectFailure, expectSuccess, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { type CreatedData, createPayment, domainDeps, HOUR, paymentBody } from './payment-fixtures.ts';

const { app, factories, clock, orm, config } = await createTestApp();
const merchant = await factories.createMerchant();

const withKey = (key: string, headers = merchant.headers) => ({ ...headers, 'idempotency-key': key });
const paymentCount = (organization = merchant.organizationId) =>
  orm.em.fork().count(Payment, { organization });

describe('Idempotency-Key on POST /api/payments', () => {
  test('same key, same body: the original 201 body, nothing created', async () => {
    const before = await paymentCount();
    const first = expectSuccess<CreatedData>(
      await createPayment(app, withKey('order-1'), paymentBody()),
      201,
    );
    clock.advance(HOUR);
    const retry = await createPayment(app, withKey('order-1'), paymentBody());
    expect(expectSuccess<CreatedData>(retry, 201)).toEqual(first);
    expect(await paymentCount()).toBe(before + 1);
  });

  test('the same request spelled differently (key order, number amount, explicit defaults) is the same request', async () => {
    const first = expectSuccess<CreatedData>(
      await createPayment(
        app,
        withKey('order-2'),
        paymentBody({ amount: { value: '10.5', currency: 'GBP' } }),
      ),
      201,
    );
    const body = paymentBody({
      amount: { currency: 'GBP', value: 10.5 },
      flowType: 'API_ONLY',
      provider: 'mock',
    });
    expect(expectSuccess<CreatedData>(await createPayment(app, withKey('order-2'), body), 201)).toEqual(
      first,
    );
  });

  test('same key, another body: 409 IDEMPOTENCY_KEY_REUSED, nothing created', async () => {
    await createPayment(app, withKey('order-3'), paymentBody());
    const before = await paymentCount();
    const error = expectFailure(
      await createPayment(app, withKey('order-3'), paymentBody({ amount: { value: '99', currency: 'GBP' } })),
      409,
    );
    expect(error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await paymentCount()).toBe(before);
  });

  test('keys are per organization', async () => {
    const other = await factories.createMerchant();
    const mine = expectSuccess<CreatedData>(
      await createPayment(app, withKey('shared-key'), paymentBody()),
      201,
    );
    const theirs = expectSuccess<CreatedData>(
      await createPayment(app, withKey('shared-key', other.headers), paymentBody()),
      201,
    );
    expect(theirs.paymentId).not.toBe(mine.paymentId);
    expect(await paymentCount(other.organizationId)).toBe(1);
  });

  test('kept 24 hours: after that the key is free again, and the purge removes it', async () => {
    const first = expectSuccess<CreatedData>(
      await createPayment(app, withKey('order-4'), paymentBody()),
      201,
    );
    clock.advance(24 * HOUR - 1);
    expect(
      expectSuccess<CreatedData>(await createPayment(app, withKey('order-4'), paymentBody()), 201),
    ).toEqual(first);
    clock.advance(1);
    const later = expectSuccess<CreatedData>(
      await createPayment(app, withKey('order-4'), paymentBody({ reference: 'another' })),
      201,
    );
    expect(later.paymentId).not.toBe(first.paymentId);

    await createPayment(app, withKey('order-5'), paymentBody());
    clock.advance(24 * HOUR);
    expect(await purgeExpiredIdempotencyKeys(orm.em, clock.now())).toBeGreaterThan(0);
    expect(await orm.em.fork().count(IdempotencyKey, { key: 'order-5' })).toBe(0);
  });

  test('failed requests do not use up the key', async () => {
    expectValidationFailed(
      await createPayment(app, withKey('order-6'), paymentBody({ amount: { value: '0', currency: 'GBP' } })),
    );
    expectSuccess(await createPayment(app, withKey('order-6'), paymentBody()), 201);
  });

  test('a claim its failed request could not free (the database failing over) is freed once the database answers, not held until abandoned', async () => {
    const claim = {
      organizationId: merchant.organizationId,
      mode: 'test' as const,
      key: 'order-failover',
      hash: 'fingerprint',
      token: 'idem_first',
    };
    const claims = () => orm.em.fork().count(IdempotencyKey, { key: claim.key });
    expect(await claimIdempotencyKey(orm.em, claim, clock.now())).toBeUndefined();
    let unreachable = 3;
    const started = performance.now();
    await settleFailedClaim(async () => {
      if (unreachable-- > 0) throw new Error('Connection terminated unexpectedly');
      await dropIdempotencyClaim(orm.em, claim);
    }, silentLogger());
    // The failed request's answer (a 503) does not wait for the database to come back.
    expect(performance.now() - started).toBeLessThan(SETTLE_RETRY_MS);
    expect(await claims()).toBe(1);
    await vi.waitFor(async () => expect(await claims()).toBe(0), { timeout: 5_000, interval: 50 });
    expect(performance.now() - started).toBeLessThan(ABANDONED_CLAIM_MS / 3);
    // The merchant's retry takes the key at once.
    expect(await claimIdempotencyKey(orm.em, { ...claim, token: 'idem_retry' }, clock.now())).toBeUndefined();
  });

  test('claims settled in the background are bounded per process, and a stopping process stops trying', async () => {
    // Loops an earlier test left have ended (each sleeps at most 1.5 x SETTLE_RETRY_MS between tries).
    await stopSettlingClaims();
    await sleep(SETTLE_RETRY_MS * 2);
    const down = () => {
      const settle = async () => {
        settle.tries++;
        throw new Error('Connection terminated unexpectedly');
      };
      settle.tries = 0;
      return settle;
    };
    const retried = Array.from({ length: SETTLING_AT_MOST }, down);
    for (const settle of retried) await settleFailedClaim(settle, silentLogger());
    const beyond = down();
    await settleFailedClaim(beyond, silentLogger());
    await vi.waitFor(() => expect(retried.every((settle) => settle.tries > 1)).toBe(true), {
      timeout: 5_000,
    });
    // Past the bound a claim is tried once and then frees itself (ABANDONED_CLAIM_MS), as before.
    expect(beyond.tries).toBe(1);
    await stopSettlingClaims();
    const triedBefore = retried.reduce((sum, settle) => sum + settle.tries, 0);
    await sleep(SETTLE_RETRY_MS * 3);
    expect(retried.reduce((sum, settle) => sum + settle.tries, 0)).toBe(triedBefore);
  });

  test("a claim whose answer was lost with its connection (it committed) is freed: the merchant's retry creates the payment at once", async () => {
    // The claim's insert commits, then its connection drops before the answer (a failover).
    let lose = true;
    const losingEm = new Proxy(orm.em, {
      get: (target, property, receiver) =>
        property === 'fork'
          ? () => {
              const fork = target.fork();
              const execute = fork.execute.bind(fork);
              return Object.assign(fork, {
                execute: async (sql: string, ...rest: unknown[]) => {
                  const result = await (execute as (...args: unknown[]) => Promise<unknown>)(sql, ...rest);
                  if (lose && sql.startsWith('insert into idempotency_key')) {
                    lose = false;
                    throw new Error('Connection terminated unexpectedly');
                  }
                  return result;
                },
              });
            }
          : Reflect.get(target, property, receiver),
    }) as EntityManager;
    const deps = domainDeps(orm, clock, config);
    const caller = {
      organizationId: merchant.organizationId,
      approvedProviders: ['mock'],
      mode: 'test' as const,
    };
    const command = CreatePaymentInput.parse(paymentBody());
    const before = await paymentCount();
    const lost = await createPaymentDirectly(
      { ...deps, em: losingEm },
      caller,
      command,
      'order-lost-claim',
    ).catch((error: unknown) => error);
    expect((lost as Error).message).toBe('Connection terminated unexpectedly');
    const retry = await createPaymentDirectly(deps, caller, command, 'order-lost-claim');
    expect(retry.paymentId).toMatch(/^pay_/);
    expect(await paymentCount()).toBe(before + 1);
  });

  test("a create that fails after a bank that keeps payments may have started it holds its key: the merchant's retry starts nothing", async () => {
    let starts = 0;
    const mock = createMockProvider(config);
    // A bank that keeps its own payments; between its answer and ours recording it, the payment
    // changes under us (the database failing after the bank's answer is the case in the field).
    const bank = {
      ...mock,
      keepsPayments: true,
      startPayment: async (payment: { id: string }) => {
        starts++;
        await orm.em.fork().execute(`update payment set status = 'CANCELLED' where id = ?`, [payment.id]);
        return { customerUrl: 'https://bank.example/approve' };
      },
    };
    const deps = domainDeps(orm, clock, config, { providers: createProviderRegistry([bank]) });
    const caller = {
      organizationId: merchant.organizationId,
      approvedProviders: ['mock'],
      mode: 'test' as const,
    };
    const command = CreatePaymentInput.parse(paymentBody({ flowType: 'API_ONLY' }));
    const first = await createPaymentDirectly(deps, caller, command, 'order-bank-answered').catch(
      (error: unknown) => error,
    );
    expect((first as AppError).code).toBe('PROVIDER_UNAVAILABLE');
    const retry = await createPaymentDirectly(deps, caller, command, 'order-bank-answered').catch(
      (error: unknown) => error,
    );
    expect((retry as AppError).code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(starts).toBe(1);
  });

  test('concurrent duplicates: one payment; each caller gets its 201 body, or 409 IN_PROGRESS while it runs', async () => {
    const before = await paymentCount();
    const responses = await Promise.all(
      Array.from({ length: 8 }, () => createPayment(app, withKey('order-concurrent'), paymentBody())),
    );
    const created = responses.filter((response) => response.statusCode === 201);
    const inFlight = responses.filter((response) => response.statusCode !== 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const bodies = created.map((response) => expectSuccess<CreatedData>(response, 201));
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    for (const response of inFlight) {
      expect(expectFailure(response, 409).code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    }
    expect(await paymentCount()).toBe(before + 1);
    // Once the first is done, a retry gets its result.
    expect(
      expectSuccess<CreatedData>(await createPayment(app, withKey('order-concurrent'), paymentBody()), 201),
    ).toEqual(bodies[0]);
  });

  test('concurrent requests with one key and different bodies: one payment, the others 409', async () => {
    const before = await paymentCount();
    const responses = await Promise.all(
      ['1', '2', '3', '4'].map((value) =>
        createPayment(app, withKey('order-race'), paymentBody({ amount: { value, currency: 'GBP' } })),
      ),
    );
    expect(responses.map((response) => response.statusCode).sort()).toEqual([201, 409, 409, 409]);
    expect(await paymentCount()).toBe(before + 1);
  });

  test('the header is validated', async () => {
    for (const key of ['', ' ', 'k'.repeat(256), 'bad\u00e9key']) {
      const details = expectValidationFailed(await createPayment(app, withKey(key), paymentBody()));
      expect(
        details.map((detail) => detail.field),
        JSON.stringify(key),
      ).toEqual(['Idempotency-Key']);
    }
  });

  test('documented in the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    const parameters = document.paths['/payments'].post.parameters as { in: string; name: string }[];
    expect(parameters).toContainEqual(expect.objectContaining({ in: 'header', name: 'idempotency-key' }));
    expect(Object.keys(document.paths['/payments'].post.responses)).toEqual(
      expect.arrayContaining(['201', '409']),
    );
  });
});
