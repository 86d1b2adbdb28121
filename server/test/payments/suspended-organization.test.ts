import { describe, expect, test } from 'vitest';
import { Payment } from '../../src/db/entities/index.ts';
import { catchUpPayment } from '../../src/payments/catch-up-payments.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  domainDeps,
  HOUR,
  paymentBody,
  SECOND,
  tokenOf,
  trpcData,
  trpcFailure,
  trpcMutation,
  trpcQuery,
} from './payment-fixtures.ts';

/**
 * A suspended organization stops (issue 11, item 7): its API answers 403 already; its customers'
 * pages refuse every action with MERCHANT_SUSPENDED, and nothing changes. What was already
 * decided at the bank runs its course; the rest expires after 24 h unless the merchant is
 * reactivated first (docs/decisions/009-suspended-organizations.md).
 */
const { app, factories, clock, config, orm } = await createTestApp();
const deps = domainDeps(orm, clock, config);
const merchant = await factories.createMerchant();

const stored = (paymentId: string) => orm.em.fork().findOneOrFail(Payment, { id: paymentId });

const expectSuspended = (response: Awaited<ReturnType<typeof trpcQuery>>) => {
  const failure = trpcFailure(response, 403);
  expect(failure.code).toBe('MERCHANT_SUSPENDED');
  expect(failure.message).toMatch(/can't take payments right now/);
  expect(failure.message).toMatch(/Nothing has been paid/);
};

describe("a suspended organization's customer pages", () => {
  test('hosted page: session, bank list and bank choice refused, payment untouched; works again once reactivated', async () => {
    const payment = await created(app, merchant.headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    const token = tokenOf(payment.redirectUrl);
    await factories.setActive(merchant.organizationId, false);
    try {
      expectSuspended(await trpcQuery(app, 'pages.hostedSession', { token }));
      expectSuspended(await trpcQuery(app, 'pages.hostedBanks', { token, country: 'GB' }));
      expectSuspended(await trpcMutation(app, 'pages.chooseBank', { token, bankId: 'mock-gb-albion' }));
      expect((await stored(payment.paymentId)).status).toBe('PENDING');
    } finally {
      await factories.setActive(merchant.organizationId, true);
    }
    trpcData(await trpcMutation(app, 'pages.chooseBank', { token, bankId: 'mock-gb-albion' }));
    expect((await stored(payment.paymentId)).status).toBe('AUTHORIZING');
  });

  test('Mock bank page: session, approve and reject refused, payment untouched', async () => {
    const payment = await created(app, merchant.headers);
    const token = tokenOf(payment.redirectUrl);
    await factories.setActive(merchant.organizationId, false);
    try {
      expectSuspended(await trpcQuery(app, 'pages.mockBankSession', { token }));
      expectSuspended(await trpcMutation(app, 'pages.approve', { token, scenario: { preset: 'instant' } }));
      expectSuspended(await trpcMutation(app, 'pages.reject', { token, reason: 'CUST' }));
      const row = await stored(payment.paymentId);
      expect(row.status).toBe('AUTHORIZING');
      expect(row.approvedAt ?? null).toBeNull();
    } finally {
      await factories.setActive(merchant.organizationId, true);
    }
  });

  test('unfinished payments: an approved timeline runs its course; one never decided expires after 24 h', async () => {
    const approved = await created(
      app,
      merchant.headers,
      paymentBody({ mockBank: { completeAfterSeconds: 10 } }),
    );
    trpcData(
      await trpcMutation(app, 'pages.approve', {
        token: tokenOf(approved.redirectUrl),
        scenario: { completeAfterSeconds: 10 },
      }),
    );
    const waiting = await created(app, merchant.headers);
    await factories.setActive(merchant.organizationId, false);
    try {
      clock.advance(11 * SECOND);
      await catchUpPayment(deps, approved.paymentId);
      expect((await stored(approved.paymentId)).status).toBe('COMPLETED');
      clock.advance(24 * HOUR);
      await catchUpPayment(deps, waiting.paymentId);
      expect((await stored(waiting.paymentId)).status).toBe('EXPIRED');
    } finally {
      await factories.setActive(merchant.organizationId, true);
    }
  });
});
