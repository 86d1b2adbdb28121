import { isTerminal, type PaymentStatus } from '@pis/shared';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, test } from 'vitest';
import { Payment, PaymentHistory } from '../../src/db/entities/index.ts';
import { catchUpPayment } from '../../src/payments/catch-up-payments.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  domainDeps,
  getPayment,
  HOUR,
  paymentBody,
  post,
  SECOND,
  tokenOf,
  trpcMutation,
} from './payment-fixtures.ts';

/**
 * Races run for real: concurrent requests on a pool of several connections against Postgres.
 * Whatever the interleaving, each payment ends in exactly one terminal status, written once,
 * with nothing after it, and no request fails with a 500.
 */
const { app, factories, clock, config, orm } = await createTestApp();
const { headers } = await factories.createMerchant();
const deps = domainDeps(orm, clock, config);
const ROUNDS = 8;

const cancel = (id: string) => post(app, headers, `/api/payments/${id}/cancel`);
const sandboxApprove = (id: string) => post(app, headers, `/api/payments/${id}/mock-bank/approve`, {});

/** Makes the clock tick 1 ms per reading from `start`, so racers see different "nows". */
function tickFrom(start: number) {
  let next = start;
  clock.now = () => new Date(next++);
}
afterEach(() => {
  Reflect.deleteProperty(clock, 'now');
});

async function expectOneTerminal(paymentId: string): Promise<PaymentStatus> {
  const em = orm.em.fork();
  const row = await em.findOneOrFail(Payment, { id: paymentId });
  const history = await em.find(PaymentHistory, { payment: paymentId }, { orderBy: { seq: 'asc' } });
  expect(history.map((entry) => entry.seq)).toEqual(history.map((_, index) => index + 1));
  const terminal = history.filter((entry) => isTerminal(entry.status));
  expect(terminal, JSON.stringify(history.map((entry) => entry.status))).toHaveLength(1);
  expect(history.at(-1)?.status).toBe(row.status);
  expect(row.nextDueAt).toBeNull();
  return row.status;
}

const codes = (responses: LightMyRequestResponse[]) =>
  responses.map((response) => response.statusCode).sort();

describe('races on one payment', () => {
  test('two (and five) cancels: one 200, the rest 409, one CANCELLED entry', async () => {
    const ids = await Promise.all(
      Array.from({ length: ROUNDS }, async () => (await created(app, headers)).paymentId),
    );
    await Promise.all(
      ids.map(async (id, round) => {
        const responses = await Promise.all(Array.from({ length: round % 2 ? 5 : 2 }, () => cancel(id)));
        const sorted = codes(responses);
        expect(sorted[0]).toBe(200);
        expect(sorted.slice(1).every((code) => code === 409)).toBe(true);
        expect(await expectOneTerminal(id)).toBe('CANCELLED');
      }),
    );
  });

  test('approve vs cancel: exactly one wins', async () => {
    const ids = await Promise.all(
      Array.from({ length: ROUNDS }, async () => (await created(app, headers)).paymentId),
    );
    await Promise.all(
      ids.map(async (id) => {
        const responses = await Promise.all([sandboxApprove(id), cancel(id)]);
        expect(codes(responses)).toEqual([200, 409]);
        const status = await expectOneTerminal(id);
        expect(['COMPLETED', 'CANCELLED']).toContain(status);
        const winner = responses.find((response) => response.statusCode === 200);
        expect(winner?.json().data.status).toBe(status);
      }),
    );
  });

  test('two approvals (page and sandbox): one 200, the others 409 PAYMENT_ALREADY_DECIDED, one timeline', async () => {
    const payments = await Promise.all(
      Array.from({ length: ROUNDS }, () =>
        created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } })),
      ),
    );
    await Promise.all(
      payments.map(async (payment) => {
        const token = tokenOf(payment.redirectUrl);
        const responses = await Promise.all([
          trpcMutation(app, 'pages.approve', { token, scenario: { preset: 'instant' } }),
          trpcMutation(app, 'pages.approve', { token, scenario: { preset: 'slow' } }),
          sandboxApprove(payment.paymentId),
        ]);
        expect(codes(responses)).toEqual([200, 409, 409]);
        const em = orm.em.fork();
        const history = await em.find(
          PaymentHistory,
          { payment: payment.paymentId },
          { orderBy: { seq: 'asc' } },
        );
        // One approval: a single AUTHORIZED (or the instant COMPLETED) after AUTHORIZING.
        expect(
          history.filter((entry) => entry.status === 'AUTHORIZED' || entry.status === 'COMPLETED'),
        ).toHaveLength(1);
      }),
    );
    clock.advance(HOUR);
    for (const payment of payments) {
      await catchUpPayment(deps, payment.paymentId);
      expect(await expectOneTerminal(payment.paymentId)).toBe('COMPLETED');
    }
  });

  test('reject vs expiry: the worker, a reader and the customer at the 24 h mark', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const payment = await created(app, headers);
      // The 30-minute page link is long expired at 24 h: the customer's reject comes through the sandbox helper.
      tickFrom(Date.parse(payment.expiresAt) - 3);
      const results = await Promise.all([
        post(app, headers, `/api/payments/${payment.paymentId}/mock-bank/reject`, { reason: 'AM04' }),
        catchUpPayment(deps, payment.paymentId),
        getPayment(app, headers, payment.paymentId),
        app.inject({ method: 'GET', url: '/api/payments?limit=1', headers }),
      ]);
      const reject = results[0];
      expect([200, 409]).toContain(reject.statusCode);
      const status = await expectOneTerminal(payment.paymentId);
      expect(status).toBe(reject.statusCode === 200 ? 'FAILED' : 'EXPIRED');
      Reflect.deleteProperty(clock, 'now');
    }
  });

  test('cancel vs timed completion: the merchant, the worker (twice) and a reader at the due time', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      clock.set('2026-03-01T12:00:00.000Z');
      const { paymentId } = await created(
        app,
        headers,
        paymentBody({ mockBank: { completeAfterSeconds: 2 } }),
      );
      await sandboxApprove(paymentId);
      tickFrom(clock.now().getTime() + 2 * SECOND - 4);
      const [cancelled] = await Promise.all([
        cancel(paymentId),
        catchUpPayment(deps, paymentId),
        catchUpPayment(deps, paymentId),
        getPayment(app, headers, paymentId),
      ]);
      expect([200, 409]).toContain(cancelled.statusCode);
      Reflect.deleteProperty(clock, 'now');
      clock.set('2026-03-01T13:00:00.000Z');
      await catchUpPayment(deps, paymentId);
      expect((await getPayment(app, headers, paymentId)).statusCode).toBe(200);
      const status = await expectOneTerminal(paymentId);
      expect(status).toBe(cancelled.statusCode === 200 ? 'CANCELLED' : 'COMPLETED');
    }
  });
});
