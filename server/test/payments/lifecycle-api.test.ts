import { ISO_STATUS_TABLE, REASON_NAMES } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { Payment } from '../../src/db/entities/index.ts';
import { catchUpPayment, findDuePaymentIds } from '../../src/payments/catch-up-payments.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  domainDeps,
  HOUR,
  MINUTE,
  type PaymentData,
  paymentBody,
  post,
  readPayment,
  recordingScheduler,
  SECOND,
  statuses,
  tokenOf,
  trpcData,
  trpcMutation,
} from './payment-fixtures.ts';

const recorder = recordingScheduler();
const { app, factories, clock, config, orm } = await createTestApp({ scheduler: recorder.scheduler });
const { headers } = await factories.createMerchant();
const deps = domainDeps(orm, clock, config);

const approve = (id: string, body: Record<string, unknown> = {}) =>
  post(app, headers, `/api/payments/${id}/mock-bank/approve`, body);
const reject = (id: string, body: Record<string, unknown> = {}) =>
  post(app, headers, `/api/payments/${id}/mock-bank/reject`, body);
const cancel = (id: string) => post(app, headers, `/api/payments/${id}/cancel`);
const sync = (id: string) => post(app, headers, `/api/payments/${id}/sync`);

/** The spec's status mapping, checked on every status a payment shows. */
const SERVICE_STATUS: Record<string, string> = {
  RCVD: 'PENDING',
  PDNG: 'AUTHORIZING',
  ACTC: 'AUTHORIZED',
  ACCP: 'SUBMITTED',
  ACSP: 'ACCEPTED',
  ACSC: 'COMPLETED',
  CANC: 'CANCELLED',
};
function expectMapped(payment: PaymentData) {
  for (const entry of [payment, ...payment.statusHistory]) {
    const { code, name, description, reason } = entry.isoStatus;
    expect(name).toBe(ISO_STATUS_TABLE[code as keyof typeof ISO_STATUS_TABLE].name);
    expect(description).toBe(ISO_STATUS_TABLE[code as keyof typeof ISO_STATUS_TABLE].description);
    if (code === 'RJCT') {
      expect(entry.status).toBe(reason?.code === 'NOAS' ? 'EXPIRED' : 'FAILED');
    } else {
      expect(entry.status).toBe(SERVICE_STATUS[code]);
    }
    if (code === 'RJCT' || code === 'CANC') {
      expect(reason?.name).toBe(REASON_NAMES[reason?.code as keyof typeof REASON_NAMES]);
    } else {
      expect(reason).toBeUndefined();
    }
  }
  // The payment's own status is its last history entry.
  expect(payment.statusHistory.at(-1)?.status).toBe(payment.status);
}

async function readMapped(id: string) {
  const payment = await readPayment(app, headers, id);
  expectMapped(payment);
  return payment;
}

/** Moves the clock and reads the payment (GET catches up). */
async function after(id: string, ms: number) {
  clock.advance(ms);
  return readMapped(id);
}

describe('transitions table', () => {
  test('create API_ONLY mock -> AUTHORIZING (PDNG), history PENDING, AUTHORIZING', async () => {
    const { paymentId } = await created(app, headers);
    const payment = await readMapped(paymentId);
    expect(payment).toMatchObject({ status: 'AUTHORIZING', isoStatus: { code: 'PDNG' } });
    expect(payment.statusHistory.map((entry) => [entry.status, entry.provider])).toEqual([
      ['PENDING', null],
      ['AUTHORIZING', 'mock'],
    ]);
  });

  test('create hosted -> PENDING (RCVD), nothing sent to the provider until a bank is chosen', async () => {
    const data = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    expect(statuses(await readMapped(data.paymentId))).toEqual(['PENDING']);
    expect(expectSuccess<PaymentData>(await sync(data.paymentId)).status).toBe('PENDING');
    const chosen = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', {
        token: tokenOf(data.redirectUrl),
        bankId: 'mock-gb-albion',
      }),
    );
    expect(chosen.redirectUrl).toMatch(/\/mock-bank\//);
    const payment = await readMapped(data.paymentId);
    expect(payment).toMatchObject({ status: 'AUTHORIZING', bankId: 'mock-gb-albion' });
    expect(statuses(payment)).toEqual(['PENDING', 'AUTHORIZING']);
  });

  test('approve, instant (default) -> COMPLETED (ACSC) at once, completedAt set', async () => {
    const { paymentId } = await created(app, headers);
    const approvedAt = clock.now().toISOString();
    const payment = expectSuccess<PaymentData>(await approve(paymentId));
    expectMapped(payment);
    expect(payment).toMatchObject({
      status: 'COMPLETED',
      isoStatus: { code: 'ACSC' },
      completedAt: approvedAt,
    });
    expect(statuses(payment)).toEqual(['PENDING', 'AUTHORIZING', 'COMPLETED']);
    expect(payment.error).toBeUndefined();
  });

  test('approve, realistic -> AUTHORIZED now, SUBMITTED 5 s, ACCEPTED 15 s, COMPLETED 60 s (the full history)', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } }));
    const approvedAt = clock.now().getTime();
    expect(expectSuccess<PaymentData>(await approve(paymentId)).status).toBe('AUTHORIZED');
    expect(recorder.calls).toContainEqual({
      paymentId,
      dueAt: new Date(approvedAt + 5 * SECOND).toISOString(),
    });
    expect((await after(paymentId, 4999)).status).toBe('AUTHORIZED');
    expect((await after(paymentId, 1)).status).toBe('SUBMITTED');
    expect((await after(paymentId, 10 * SECOND)).status).toBe('ACCEPTED');
    expect((await after(paymentId, 44 * SECOND)).status).toBe('ACCEPTED');
    const done = await after(paymentId, SECOND);
    expect(done).toMatchObject({
      status: 'COMPLETED',
      completedAt: new Date(approvedAt + 60 * SECOND).toISOString(),
    });
    expect(statuses(done)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'SUBMITTED',
      'ACCEPTED',
      'COMPLETED',
    ]);
    expect(done.statusHistory.map((entry) => entry.isoStatus.code)).toEqual([
      'RCVD',
      'PDNG',
      'ACTC',
      'ACCP',
      'ACSP',
      'ACSC',
    ]);
    // Steps are stamped with their due time, not the time someone read them.
    expect(done.statusHistory.slice(2).map((entry) => Date.parse(entry.timestamp) - approvedAt)).toEqual([
      0,
      5 * SECOND,
      15 * SECOND,
      60 * SECOND,
    ]);
  });

  test('a reader arriving late sees every step that fell due at once, in order', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } }));
    await approve(paymentId);
    const done = await after(paymentId, 10 * MINUTE);
    expect(statuses(done)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'SUBMITTED',
      'ACCEPTED',
      'COMPLETED',
    ]);
  });

  test('approve, slow -> AUTHORIZED now, SUBMITTED 30 s, ACCEPTED 2 min, COMPLETED 10 min', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'slow' } }));
    expect(expectSuccess<PaymentData>(await approve(paymentId)).status).toBe('AUTHORIZED');
    expect((await after(paymentId, 29 * SECOND)).status).toBe('AUTHORIZED');
    expect((await after(paymentId, SECOND)).status).toBe('SUBMITTED');
    expect((await after(paymentId, 90 * SECOND)).status).toBe('ACCEPTED');
    expect((await after(paymentId, 8 * MINUTE - 1)).status).toBe('ACCEPTED');
    expect((await after(paymentId, 1)).status).toBe('COMPLETED');
  });

  test('approve, completeAfterSeconds N -> AUTHORIZED, SUBMITTED at 10%, ACCEPTED at 40%, COMPLETED at N', async () => {
    const { paymentId } = await created(
      app,
      headers,
      paymentBody({ mockBank: { completeAfterSeconds: 20 } }),
    );
    await approve(paymentId);
    expect((await after(paymentId, 2 * SECOND)).status).toBe('SUBMITTED');
    expect((await after(paymentId, 6 * SECOND)).status).toBe('ACCEPTED');
    expect((await after(paymentId, 12 * SECOND)).status).toBe('COMPLETED');
  });

  test('very short N skips the middle steps that would fall on the same second', async () => {
    const one = (await created(app, headers, paymentBody({ mockBank: { completeAfterSeconds: 1 } })))
      .paymentId;
    await approve(one);
    expect(statuses(await after(one, SECOND))).toEqual(['PENDING', 'AUTHORIZING', 'AUTHORIZED', 'COMPLETED']);
    const two = (await created(app, headers, paymentBody({ mockBank: { completeAfterSeconds: 2 } })))
      .paymentId;
    await approve(two);
    expect(statuses(await after(two, 2 * SECOND))).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'ACCEPTED',
      'COMPLETED',
    ]);
  });

  test('completeAfterSeconds 2, approved: COMPLETED in the list (not only on GET) 2 s later, with its history', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { completeAfterSeconds: 2 } }));
    await approve(paymentId);
    clock.advance(2 * SECOND);
    const list = expectSuccess<{ payments: PaymentData[] }>(
      await app.inject({ method: 'GET', url: '/api/payments?status=COMPLETED', headers }),
    );
    const payment = list.payments.find((item) => item.paymentId === paymentId);
    expect(payment).toBeDefined();
    expectMapped(payment as PaymentData);
    expect(statuses(payment as PaymentData)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'ACCEPTED',
      'COMPLETED',
    ]);
  });

  test('reject -> FAILED (RJCT, reason CUST by default, else the request rejectReason), error set', async () => {
    const plain = (await created(app, headers)).paymentId;
    const failed = expectSuccess<PaymentData>(await reject(plain));
    expectMapped(failed);
    expect(failed).toMatchObject({
      status: 'FAILED',
      isoStatus: { code: 'RJCT', reason: { code: 'CUST', name: 'RequestedByCustomer' } },
      error: { code: 'CUST', message: expect.any(String) },
    });
    expect(failed.completedAt).toBeUndefined();

    for (const reason of ['AM04', 'AC04', 'NARR'] as const) {
      const id = (await created(app, headers, paymentBody({ mockBank: { rejectReason: reason } }))).paymentId;
      const payment = expectSuccess<PaymentData>(await reject(id));
      expect(payment.isoStatus.reason?.code).toBe(reason);
      expect(payment.error?.code).toBe(reason);
    }
    // The helper's own reason overrides the request's.
    const id = (await created(app, headers, paymentBody({ mockBank: { rejectReason: 'AM04' } }))).paymentId;
    expect(expectSuccess<PaymentData>(await reject(id, { reason: 'AC04' })).isoStatus.reason?.code).toBe(
      'AC04',
    );
  });

  test('undecided payments expire 24 h after creation (RJCT / NOAS), whatever their status', async () => {
    const hosted = (await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }))).paymentId;
    const authorizing = (await created(app, headers)).paymentId;
    const createdAt = clock.now().getTime();
    expect((await after(hosted, 24 * HOUR - 1)).status).toBe('PENDING');
    for (const id of [hosted, authorizing]) {
      const expired = await after(id, id === hosted ? 1 : 0);
      expect(expired).toMatchObject({
        status: 'EXPIRED',
        isoStatus: { code: 'RJCT', reason: { code: 'NOAS', name: 'NoAnswerFromCustomer' } },
      });
      expect(Date.parse(expired.statusHistory.at(-1)?.timestamp ?? '')).toBe(createdAt + 24 * HOUR);
    }
    expect((await readMapped(hosted)).statusHistory.at(-1)?.provider).toBeNull();
    expect((await readMapped(authorizing)).statusHistory.at(-1)?.provider).toBe('mock');
  });

  test('an approved payment runs its timeline even past 24 h; it does not expire', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'slow' } }));
    clock.advance(24 * HOUR - MINUTE);
    await approve(paymentId);
    expect((await after(paymentId, 2 * MINUTE)).status).toBe('ACCEPTED');
    expect((await after(paymentId, 9 * MINUTE)).status).toBe('COMPLETED');
  });

  test('expiry is applied by the worker too, without any reader', async () => {
    const { paymentId } = await created(app, headers);
    clock.advance(24 * HOUR);
    const due = await findDuePaymentIds(orm.em, clock.now(), 1000);
    expect(due).toContain(paymentId);
    await catchUpPayment(deps, paymentId);
    await catchUpPayment(deps, paymentId); // a duplicate job changes nothing
    const row = await orm.em.fork().findOneOrFail(Payment, { id: paymentId });
    expect(row).toMatchObject({ status: 'EXPIRED', isoCode: 'RJCT', isoReason: 'NOAS', nextDueAt: null });
    expect(await findDuePaymentIds(orm.em, clock.now(), 1000)).not.toContain(paymentId);
    expect(statuses(await readMapped(paymentId))).toEqual(['PENDING', 'AUTHORIZING', 'EXPIRED']);
  });

  test('the worker moves a timeline step by step and schedules each next step', async () => {
    const { paymentId } = await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } }));
    await approve(paymentId);
    const approvedAt = clock.now().getTime();
    clock.advance(5 * SECOND);
    await catchUpPayment(deps, paymentId);
    const row = await orm.em.fork().findOneOrFail(Payment, { id: paymentId });
    expect(row.status).toBe('SUBMITTED');
    expect(row.nextDueAt?.getTime()).toBe(approvedAt + 15 * SECOND);
  });

  test('cancel any unfinished payment -> CANCELLED (CANC / CUST), the answer is the payment', async () => {
    const pending = (await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }))).paymentId;
    const authorizing = (await created(app, headers)).paymentId;
    const inFlight = (await created(app, headers, paymentBody({ mockBank: { preset: 'realistic' } })))
      .paymentId;
    await approve(inFlight);
    clock.advance(6 * SECOND);
    for (const [id, before] of [
      [pending, 'PENDING'],
      [authorizing, 'AUTHORIZING'],
      [inFlight, 'SUBMITTED'],
    ] as const) {
      expect((await readMapped(id)).status).toBe(before);
      const payment = expectSuccess<PaymentData>(await cancel(id));
      expectMapped(payment);
      expect(payment).toMatchObject({
        status: 'CANCELLED',
        isoStatus: { code: 'CANC', name: 'Cancelled', reason: { code: 'CUST', name: 'RequestedByCustomer' } },
      });
      expect(payment.statusHistory.at(-2)?.status).toBe(before);
    }
    // A cancelled timeline never completes.
    expect((await after(inFlight, HOUR)).status).toBe('CANCELLED');
  });

  test('cancel a finished payment -> 409 PAYMENT_NOT_CANCELLABLE, unchanged', async () => {
    const completed = (await created(app, headers)).paymentId;
    await approve(completed);
    const failed = (await created(app, headers)).paymentId;
    await reject(failed);
    const cancelled = (await created(app, headers)).paymentId;
    await cancel(cancelled);
    const expired = (await created(app, headers)).paymentId;
    clock.advance(24 * HOUR);
    for (const [id, status] of [
      [completed, 'COMPLETED'],
      [failed, 'FAILED'],
      [cancelled, 'CANCELLED'],
      [expired, 'EXPIRED'],
    ] as const) {
      const before = await readMapped(id);
      const error = expectFailure(await cancel(id), 409);
      expect(error).toEqual({
        code: 'PAYMENT_NOT_CANCELLABLE',
        message: `Payment is ${status} and can no longer be cancelled`,
      });
      expect(await readMapped(id)).toEqual(before);
    }
  });

  test('an expiry that fell due is applied even when the cancel it makes fail is refused', async () => {
    const { paymentId } = await created(app, headers);
    clock.advance(25 * HOUR);
    expect(expectFailure(await cancel(paymentId), 409).code).toBe('PAYMENT_NOT_CANCELLABLE');
    const row = await orm.em.fork().findOneOrFail(Payment, { id: paymentId });
    expect(row.status).toBe('EXPIRED');
  });

  test('sync answers the caught-up payment for the Mock bank', async () => {
    const { paymentId } = await created(
      app,
      headers,
      paymentBody({ mockBank: { completeAfterSeconds: 10 } }),
    );
    await approve(paymentId);
    clock.advance(10 * SECOND);
    const payment = expectSuccess<PaymentData>(await sync(paymentId));
    expect(payment.status).toBe('COMPLETED');
    expectMapped(payment);
  });
});
