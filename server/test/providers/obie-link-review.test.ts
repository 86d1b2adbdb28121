import { PAYMENT_LIFETIME_MS } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { ObieAuthorization, Payment, ProviderClaim } from '../../src/db/entities/index.ts';
import { post, readPayment } from '../payments/payment-fixtures.ts';
import {
  BANK_ID,
  bankDatabaseOf,
  CALLBACK,
  obieMerchant,
  obieWithSandboxBank,
  openObieLink,
} from './obie-test-setup.ts';

/**
 * Security review of the obie customer link (review4): what a customer, or a stranger holding a
 * link, can do with a bank request opened before the payment stopped waiting for them. The real
 * sandbox bank, real Postgres.
 */
const { app, factories, orm, clock, bankDatabase } = await obieWithSandboxBank({ stepMs: 200 });
const { merchant, headers, obiePayment } = await obieMerchant({ app, factories });
const { pool: bankDb, liveParRequests } = bankDatabaseOf(bankDatabase.url);

/** Payments the bank itself made for one of ours (its own database): money that moved. */
const paymentsAtBank = async (paymentId: string) =>
  (
    await bankDb.query<{ id: string }>(
      `select p.id from payments p join consents c on c.id = p.consent_id
       where c.data->'Initiation'->>'InstructionIdentification' = $1`,
      [paymentId.slice(0, 35)],
    )
  ).rows;

const backAtCallback = (bankRedirect: string) => {
  const url = new URL(bankRedirect);
  return app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
};

const statusOf = async (paymentId: string) =>
  (await orm.em.fork().findOneOrFail(Payment, { id: paymentId })).status;

describe('a bank request opened before the payment stopped waiting does not move money', () => {
  test('cancelled by the merchant while the customer is at the bank: the approval is not submitted', async () => {
    const payment = await obiePayment();
    // The customer opens the link (a PAR request at the bank) ...
    const atBank = await openObieLink(app, payment.redirectUrl);
    // ... the merchant cancels meanwhile (our answer: CANCELLED, the customer was told nothing) ...
    const cancelled = await post(app, headers, `/api/payments/${payment.paymentId}/cancel`);
    expect(cancelled.statusCode).toBe(200);
    // ... and the customer approves at the bank and comes back.
    const back = await backAtCallback(await customerAt(atBank, CALLBACK, { action: 'approve' }));
    expect(await paymentsAtBank(payment.paymentId)).toEqual([]);
    expect(await statusOf(payment.paymentId)).toBe('CANCELLED');
    const authorization = await orm.em
      .fork()
      .findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    expect(authorization.bankPaymentId).toBeNull();
    expect(back.statusCode).toBe(400);
  });

  test('expired (24 h) while the customer is at the bank: the approval is not submitted', async () => {
    const payment = await obiePayment();
    const atBank = await openObieLink(app, payment.redirectUrl);
    clock.advance(PAYMENT_LIFETIME_MS + 1_000);
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('EXPIRED');
    const back = await backAtCallback(await customerAt(atBank, CALLBACK, { action: 'approve' }));
    expect(await paymentsAtBank(payment.paymentId)).toEqual([]);
    expect(await statusOf(payment.paymentId)).toBe('EXPIRED');
    expect(back.statusCode).toBe(400);
  });

  test('a payment whose customer already came back cannot be cancelled (the bank has it)', async () => {
    const payment = await obiePayment();
    const back = await backAtCallback(
      await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, { action: 'approve' }),
    );
    expect(back.statusCode).toBe(200);
    const cancel = await post(app, headers, `/api/payments/${payment.paymentId}/cancel`);
    expect(cancel.statusCode).toBe(409);
    expect(await paymentsAtBank(payment.paymentId)).toHaveLength(1);
  });

  test('a cancel in flight (its claim taken, the bank not yet told) and the customer back: not submitted', async () => {
    const payment = await obiePayment();
    const atBank = await openObieLink(app, payment.redirectUrl);
    // The cancel has claimed the payment and passed the adapter's check; its answer is not applied yet.
    await orm.em.fork().insert(ProviderClaim, {
      payment: payment.paymentId,
      claimId: 'review4-cancel',
      action: 'cancel',
      bankId: null,
      claimedAt: clock.now(),
    });
    const back = await backAtCallback(await customerAt(atBank, CALLBACK, { action: 'approve' }));
    expect(await paymentsAtBank(payment.paymentId)).toEqual([]);
    expect(back.statusCode).toBe(400);
  });
});

describe('a suspended merchant', () => {
  test('its link is refused (403 page) before the bank is asked', async () => {
    const payment = await obiePayment();
    const parsBefore = await liveParRequests();
    await factories.setActive(merchant.organizationId, false);
    try {
      const opened = await app.inject({ method: 'GET', url: new URL(payment.redirectUrl ?? '').pathname });
      expect(opened.statusCode).toBe(403);
      expect(opened.headers.location).toBeUndefined();
      expect(opened.body).toMatch(/This payment cannot go ahead/);
      expect(await liveParRequests()).toBe(parsBefore);
    } finally {
      await factories.setActive(merchant.organizationId, true);
    }
  });

  test('suspended while the customer is at the bank: the approval is not submitted', async () => {
    const payment = await obiePayment();
    const atBank = await openObieLink(app, payment.redirectUrl);
    await factories.setActive(merchant.organizationId, false);
    try {
      const back = await backAtCallback(await customerAt(atBank, CALLBACK, { action: 'approve' }));
      expect(await paymentsAtBank(payment.paymentId)).toEqual([]);
      expect(back.statusCode).toBe(400);
    } finally {
      await factories.setActive(merchant.organizationId, true);
    }
  });
});

describe('the link spelled with percent-escapes', () => {
  test('opens the link as well (so its log line must be masked too: obie-link-log-review.test.ts)', async () => {
    const payment = await obiePayment();
    const path = new URL(payment.redirectUrl ?? '').pathname.replace('/authorize/', '/%61uthorize/');
    const opened = await app.inject({ method: 'GET', url: path });
    expect(opened.statusCode).toBe(303);
    expect(new URL(String(opened.headers.location)).searchParams.get('request_uri')).toMatch(/^urn:/);
  });
});

describe('one link opened from many addresses', () => {
  test('makes at most 10 requests at the bank a minute (the per-address limit alone does not bound it)', async () => {
    const payment = await obiePayment();
    const path = new URL(payment.redirectUrl ?? '').pathname;
    // Rate limits are off in this file, as for a link spread over many addresses: each under its
    // own per-address budget.
    for (let open = 0; open < 10; open++) {
      const opened = await app.inject({ method: 'GET', url: path, remoteAddress: `198.51.100.${open + 1}` });
      expect(opened.statusCode).toBe(303);
    }
    const parsBefore = await liveParRequests();
    const refused = await app.inject({ method: 'GET', url: path, remoteAddress: '198.51.100.200' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toContain('text/html');
    expect(refused.headers.location).toBeUndefined();
    expect(await liveParRequests()).toBe(parsBefore);
    // A minute later the link works again.
    clock.advance(61_000);
    await openObieLink(app, payment.redirectUrl);
  });
});

describe('the migration to obie_authorization_request during a rolling deploy', () => {
  // docs/operations.md runs migrations first and keeps the previous build serving until it is
  // replaced: the migration keeps the previous build's columns (nullable), and this build finds
  // a request the previous one made there.
  test('the previous build’s writes and reads of obie_authorization still work on the new schema', async () => {
    const connection = orm.em.getConnection();
    // What the previous build's startPayment wrote (ObieAuthorization with its request) ...
    await connection.execute(
      `insert into "obie_authorization" ("payment_id", "bank_id", "consent_id", "state", "nonce", "code_verifier", "callback_at", "bank_payment_id", "created_at")
       values ('pay_review4_old', ?, 'consent-old', 'state-old', 'nonce-old', 'verifier-old', null, null, now())`,
      [BANK_ID],
    );
    // ... and how its callback found the payment.
    const found = await connection.execute(
      `select "payment_id" from "obie_authorization" where "state" = 'state-old'`,
    );
    expect(found).toHaveLength(1);
  });

  test('a customer sent to the bank by the previous build comes back to this one: COMPLETED', async () => {
    const payment = await obiePayment();
    const atBank = await openObieLink(app, payment.redirectUrl);
    // Made as the previous build made it: the request on obie_authorization itself.
    const connection = orm.em.getConnection();
    await connection.execute(
      `update obie_authorization a set state = r.state, nonce = r.nonce, code_verifier = r.code_verifier
        from obie_authorization_request r where r.payment_id = a.payment_id and a.payment_id = ?`,
      [payment.paymentId],
    );
    await connection.execute('delete from obie_authorization_request where payment_id = ?', [
      payment.paymentId,
    ]);
    const back = await backAtCallback(await customerAt(atBank, CALLBACK, { action: 'approve' }));
    expect(back.statusCode).toBe(200);
    await until(async () => {
      await post(app, headers, `/api/payments/${payment.paymentId}/sync`);
      return (await readPayment(app, headers, payment.paymentId)).status === 'COMPLETED';
    });
  });
});
