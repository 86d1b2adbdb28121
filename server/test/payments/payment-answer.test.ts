import { createHash } from 'node:crypto';
import {
  type HistoryRecord,
  ISO_CODES,
  type IsoCode,
  jsonEtag,
  Payment,
  type PaymentRecord,
  REASON_CODES,
  type ReasonCode,
  toPayment,
} from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { createKey } from '../../src/cli/admin-actions.ts';
import { loadPayment } from '../../src/payments/load-payment.ts';
import { ANSWER_FORMAT, purgeFinishedAnswers, storePaymentAnswer } from '../../src/payments/payment-store.ts';
import { settleAnswerStores } from '../../src/payments/read-payment.ts';
import { createMockProvider } from '../../src/providers/mock-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, getPayment, HOUR, type PaymentData, paymentBody, post } from './payment-fixtures.ts';
import { controllableProvider } from './test-provider.ts';

/**
 * GET /payments/{id}'s answer is made once per version of the payment and then sent as stored
 * (payments/read-payment.ts `getPaymentAnswer`, table `payment_answer`). Two apps: one reads the
 * payment in the key lookup's round trip (no key cache: the preload), one on its own (the key
 * cache, as `npm start` runs).
 */
const DAY = 24 * HOUR;
const preloading = await createTestApp();
const cached = await createTestApp({ keyCache: true });

describe.each([
  ['with the key lookup (preload)', preloading],
  ['on its own (key cached)', cached],
])('the stored answer, read %s', (_name, { app, factories, orm, clock }) => {
  const sql = <T>(text: string, values: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(text, values);
  const stored = async (paymentId: string) => {
    await settleAnswerStores();
    const rows = await sql<{ version: number; format: number; answer: string; etag: string }>(
      'select version, format, answer, etag from payment_answer where payment_id = ?',
      [paymentId],
    );
    return rows[0];
  };
  const setStored = (paymentId: string, change: string, values: unknown[]) =>
    sql(`update payment_answer set ${change} where payment_id = ?`, [...values, paymentId]);
  const read = async (headers: Record<string, string>, paymentId: string) =>
    expectSuccess<PaymentData>(await getPayment(app, headers, paymentId));
  /** A payment read once, its answer stored, then edited in place to tell when it is sent. */
  const storedAndMarked = async (headers: Record<string, string>) => {
    const { paymentId } = await created(app, headers, paymentBody({ reference: 'Order 1001' }));
    await getPayment(app, headers, paymentId);
    const { answer } = (await stored(paymentId)) ?? { answer: '' };
    await setStored(paymentId, 'answer = ?', [answer.replace('Order 1001', 'Order 4242')]);
    expect((await read(headers, paymentId)).reference.reference).toBe('Order 4242');
    return paymentId;
  };

  test('the first read stores the answer as the schema has it; later reads send that text, the same ETag', async () => {
    const { headers } = await factories.createMerchant();
    const { paymentId } = await created(app, headers);
    const first = await getPayment(app, headers, paymentId);
    const { record, history } = await loadPayment(orm.em.fork(), { paymentId });
    // The schema's key order and nothing more, as tRPC's output validation answered before.
    const text = JSON.stringify(Payment.parse(toPayment(record, history)));
    expect(first.body).toBe(`{"success":true,"data":${text}}`);
    expect(first.headers.etag).toBe(jsonEtag(text));
    expect(await stored(paymentId)).toEqual({
      version: 1,
      format: ANSWER_FORMAT,
      answer: text,
      etag: jsonEtag(text),
    });

    const second = await getPayment(app, headers, paymentId);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  test('what is stored is what is sent, until the payment changes', async () => {
    const { headers } = await factories.createMerchant();
    const paymentId = await storedAndMarked(headers);
    // A change moves the payment's version on: the stored answer is never sent again.
    expect((await post(app, headers, `/api/payments/${paymentId}/cancel`)).statusCode).toBe(200);
    const after = await read(headers, paymentId);
    expect(after.status).toBe('CANCELLED');
    expect(after.reference.reference).toBe('Order 1001');
    expect(await stored(paymentId)).toMatchObject({ version: 2 });
  });

  test('a step that fell due since the answer was stored is applied and answered (no worker runs here)', async () => {
    const { headers } = await factories.createMerchant();
    const paymentId = await storedAndMarked(headers);
    clock.advance(25 * 60 * 60 * 1000);
    const after = await read(headers, paymentId);
    expect(after.status).not.toBe('AUTHORIZING');
    expect(after.reference.reference).toBe('Order 1001');
  });

  test("a payment finished over a week ago keeps no answer: the workers' purge drops it, a read makes the same one and stores none", async () => {
    const { headers } = await factories.createMerchant();
    const cancelled = async () => {
      const { paymentId } = await created(app, headers);
      expect((await post(app, headers, `/api/payments/${paymentId}/cancel`)).statusCode).toBe(200);
      return paymentId;
    };
    const old = await cancelled();
    const first = await getPayment(app, headers, old);
    expect(await stored(old)).toBeDefined();
    clock.advance(6 * DAY);
    const recent = await cancelled();
    await getPayment(app, headers, recent);
    // Six days after it finished: kept.
    await purgeFinishedAnswers(orm.em, clock.now());
    expect(await stored(old)).toBeDefined();

    clock.advance(2 * DAY);
    const { paymentId: open } = await created(app, headers);
    await getPayment(app, headers, open);
    expect(await purgeFinishedAnswers(orm.em, clock.now())).toBeGreaterThanOrEqual(1);
    expect(await stored(old)).toBeUndefined();
    expect(await stored(recent)).toBeDefined();
    expect(await stored(open)).toBeDefined();

    // Read again: the same bytes and ETag, made from the payment, and not stored again.
    const again = await getPayment(app, headers, old);
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await stored(old)).toBeUndefined();
  });

  test("a write from outside the service (an operator's SQL) is never hidden by a stored answer", async () => {
    const { headers } = await factories.createMerchant();
    const paymentId = await storedAndMarked(headers);
    await sql(`update payment set reference = 'Order 7777' where id = ?`, [paymentId]);
    expect((await read(headers, paymentId)).reference.reference).toBe('Order 7777');

    const again = await storedAndMarked(headers);
    await sql(`update payment_history set details = 'fixed by hand' where payment_id = ? and seq = 1`, [
      again,
    ]);
    const fixed = await read(headers, again);
    expect(fixed.reference.reference).toBe('Order 1001');
    expect(fixed.statusHistory[0]?.details).toBe('fixed by hand');
  });

  test("another organization's key, or the other mode's, finds nothing, stored answer or not", async () => {
    const owner = await factories.createMerchant();
    const stranger = await factories.createMerchant();
    const paymentId = await storedAndMarked(owner.headers);
    expect(expectFailure(await getPayment(app, stranger.headers, paymentId), 404).message).toBe(
      'Payment not found',
    );
    await factories.approveProvider(owner.organizationId, 'obie');
    const live = await createKey(
      orm.em.fork(),
      { organizationId: owner.organizationId, permissions: { read: true, write: true }, mode: 'live' },
      clock,
    );
    expectFailure(await getPayment(app, { 'x-api-key': live.apiKey }, paymentId), 404);
  });

  test("an answer in another build's format is never sent; a later build's is not replaced", async () => {
    const { headers } = await factories.createMerchant();
    const paymentId = await storedAndMarked(headers);
    await setStored(paymentId, 'format = ?', [ANSWER_FORMAT - 1]);
    expect((await read(headers, paymentId)).reference.reference).toBe('Order 1001');
    expect(await stored(paymentId)).toMatchObject({ version: 1, format: ANSWER_FORMAT });

    // A later build's answer (a rolling deploy): this build makes its own and leaves that one.
    await setStored(paymentId, 'format = ?, answer = ?', [ANSWER_FORMAT + 1, '{}']);
    expect((await read(headers, paymentId)).reference.reference).toBe('Order 1001');
    expect(await stored(paymentId)).toMatchObject({ format: ANSWER_FORMAT + 1, answer: '{}' });
  });

  test('an answer of an older version never replaces a newer one', async () => {
    const { headers } = await factories.createMerchant();
    const { paymentId } = await created(app, headers);
    await post(app, headers, `/api/payments/${paymentId}/cancel`);
    await getPayment(app, headers, paymentId);
    const newer = await stored(paymentId);
    expect(newer).toMatchObject({ version: 2 });
    // A read of version 1 that finished after the read of version 2 (a slow process).
    await storePaymentAnswer(orm.em.fork(), paymentId, 1, { text: '{}', etag: '"0"' });
    expect(await stored(paymentId)).toEqual(newer);
  });

  test('a store that fails leaves the read answered, and the next read makes the answer again', async () => {
    const { headers } = await factories.createMerchant();
    const { paymentId } = await created(app, headers);
    await sql(`create or replace function refuse_answer() returns trigger language plpgsql as $$
      begin raise exception 'no answers today'; end $$`);
    await sql(
      'create trigger refuse_answer before insert on payment_answer for each row execute function refuse_answer()',
    );
    try {
      expect((await getPayment(app, headers, paymentId)).statusCode).toBe(200);
      expect(await stored(paymentId)).toBeUndefined();
    } finally {
      await sql('drop trigger refuse_answer on payment_answer');
    }
    expect((await getPayment(app, headers, paymentId)).statusCode).toBe(200);
    expect(await stored(paymentId)).toMatchObject({ version: 1 });
  });
});

const real = controllableProvider('real');
const withBank = await createTestApp({
  providers: createProviderRegistry([createMockProvider(testConfig()), real.provider]),
});

describe('a payment at a real bank', () => {
  const { app, factories } = withBank;

  test('asks the bank on every read, stored answer or not, and answers its news', async () => {
    const merchant = await factories.createMerchant();
    await factories.approveProvider(merchant.organizationId, 'real');
    const { paymentId } = await created(app, merchant.headers, paymentBody({ provider: 'real' }));
    const asked = () => real.state.calls.filter((call) => call === 'status').length;
    const before = asked();
    await getPayment(app, merchant.headers, paymentId);
    await settleAnswerStores();
    expect(expectSuccess<PaymentData>(await getPayment(app, merchant.headers, paymentId)).status).toBe(
      'AUTHORIZING',
    );
    expect(asked()).toBe(before + 2);
    real.state.rejectedAtBank = true;
    expect(expectSuccess<PaymentData>(await getPayment(app, merchant.headers, paymentId)).status).toBe(
      'FAILED',
    );
  });
});

describe('ANSWER_FORMAT', () => {
  // Every optional field present, so any change to toPayment's JSON changes the text.
  const at = new Date('2026-11-29T10:00:00.000Z');
  const record: PaymentRecord = {
    id: 'pay_answer_format',
    organizationId: 'org',
    mode: 'test',
    status: 'FAILED',
    isoCode: 'RJCT',
    isoReason: 'AM04',
    provider: 'mock',
    bankId: 'mock-bank',
    amount: { value: '10.50', currency: 'GBP' },
    fromAccount: { accountName: 'Jane Doe', sortCode: '11-22-33', accountNumber: '87654321' },
    toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
    reference: { reference: 'Order 1001', endToEndId: 'E2E-1' },
    flowType: 'API_ONLY',
    returnUrl: 'https://shop.example/return',
    mockBank: null,
    approvedAt: at,
    timing: null,
    error: { code: 'INSUFFICIENT_FUNDS', message: 'Not enough money' },
    createdAt: at,
    updatedAt: at,
    expiresAt: at,
    completedAt: at,
    nextDueAt: null,
    providerStatus: null,
    clockOffsetSeconds: 0,
  } as PaymentRecord;
  // An entry for every ISO code and every reason: shared's status texts are in the answer too.
  const entry = (isoCode: IsoCode, isoReason: ReasonCode | null, index: number): HistoryRecord => ({
    status: 'FAILED',
    isoCode,
    isoReason,
    provider: index % 2 ? 'mock' : null,
    details: index % 2 ? 'Not enough money' : null,
    timestamp: at,
    simulated: index % 3 === 0,
    actor: index % 2 ? { type: 'customer', name: 'Jane' } : null,
  });
  const history: HistoryRecord[] = [
    ...ISO_CODES.map((code, index) => entry(code, null, index)),
    ...REASON_CODES.map((reason, index) => entry('RJCT', reason, index)),
  ];

  test('names the JSON toPayment makes: raise it (and this fingerprint) when that JSON changes', () => {
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(Payment.parse(toPayment(record, history))))
      .digest('hex')
      .slice(0, 16);
    expect({ format: ANSWER_FORMAT, fingerprint }).toEqual({ format: 1, fingerprint: 'a5d78678b4947dff' });
  });
});
