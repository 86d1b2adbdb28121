import { describe, expect, it } from 'vitest';
import {
  AppError,
  approve,
  type Change,
  CreatePaymentInput,
  cancel,
  catchUp,
  merchantReturnUrl,
  type PaymentRecord,
  receivePayment,
  reject,
  sendToProvider,
  toPayment,
} from '../src/index.ts';

const T0 = new Date('2026-03-01T10:00:00.000Z');
const seconds = (n: number) => new Date(T0.getTime() + n * 1000);

const create = (body: Record<string, unknown> = {}): Change =>
  receivePayment(
    CreatePaymentInput.parse({
      toAccount: { accountName: 'Acme Ltd', sortCode: '12-34-56', accountNumber: '12345678' },
      amount: { value: '10.50', currency: 'GBP' },
      redirectUrl: 'https://shop.example/return?order=42',
      ...body,
    }),
    { id: 'pay_test', organizationId: 'org_test', endToEndId: 'E2E1' },
    T0,
  );

const atBank = (body: Record<string, unknown> = {}): Change => {
  const created = create(body);
  const sent = sendToProvider(created.record, null, T0);
  return { record: sent.record, history: [...created.history, ...sent.history] };
};

const statuses = (change: Change) => change.history.map((entry) => `${entry.status}/${entry.isoCode}`);
const expectError = (fn: () => unknown, kind: string) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).kind).toBe(kind);
    return;
  }
  throw new Error(`expected ${kind}`);
};

describe('payment lifecycle', () => {
  it('creates PENDING then AUTHORIZING with both steps in the history', () => {
    const change = atBank();
    expect(change.record.status).toBe('AUTHORIZING');
    expect(statuses(change)).toEqual(['PENDING/RCVD', 'AUTHORIZING/PDNG']);
    expect(change.record.expiresAt.toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(change.record.nextDueAt).toEqual(change.record.expiresAt);
    expect(change.record.reference).toEqual({ reference: 'E2E1', endToEndId: 'E2E1' });
  });

  it('instant approval completes at once and sets completedAt', () => {
    const approved = approve(atBank().record, { preset: 'instant', completeAfterSeconds: null }, seconds(3));
    expect(approved.record.status).toBe('COMPLETED');
    expect(approved.record.completedAt).toEqual(seconds(3));
    expect(approved.record.nextDueAt).toBeNull();
    expect(statuses(approved)).toEqual(['COMPLETED/ACSC']);
  });

  it('realistic approval runs the full history, each step stamped at its due time', () => {
    const start = atBank();
    const approved = approve(start.record, { preset: 'realistic', completeAfterSeconds: null }, seconds(10));
    expect(approved.record.status).toBe('AUTHORIZED');
    expect(approved.record.nextDueAt).toEqual(seconds(15));
    const later = catchUp(approved.record, seconds(100));
    const all = [...start.history, ...approved.history, ...later.history];
    expect(all.map((entry) => entry.status)).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'SUBMITTED',
      'ACCEPTED',
      'COMPLETED',
    ]);
    expect(later.history.map((entry) => entry.timestamp)).toEqual([seconds(15), seconds(25), seconds(70)]);
    expect(later.record.completedAt).toEqual(seconds(70));
    expect(catchUp(later.record, seconds(1000)).history).toEqual([]);
  });

  it('catching up twice applies nothing twice', () => {
    const approved = approve(atBank().record, { preset: 'realistic', completeAfterSeconds: null }, T0);
    const first = catchUp(approved.record, seconds(6));
    expect(statuses(first)).toEqual(['SUBMITTED/ACCP']);
    expect(catchUp(first.record, seconds(6)).history).toEqual([]);
  });

  it('rejection fails the payment with the reason and an error', () => {
    const rejected = reject(atBank({ mockBank: { rejectReason: 'AM04' } }).record, 'AM04', seconds(1));
    expect(rejected.record.status).toBe('FAILED');
    expect(rejected.record.isoReason).toBe('AM04');
    expect(rejected.record.error).toEqual({
      code: 'AM04',
      message: "Insufficient funds in the customer's account",
    });
    expect(rejected.record.nextDueAt).toBeNull();
  });

  it('a decided payment cannot be decided twice; a hosted payment needs a bank first', () => {
    const approved = approve(atBank().record, { preset: 'realistic', completeAfterSeconds: null }, T0);
    expectError(
      () => approve(approved.record, { preset: 'instant', completeAfterSeconds: null }, T0),
      'PAYMENT_ALREADY_DECIDED',
    );
    expectError(() => reject(approved.record, 'CUST', T0), 'PAYMENT_ALREADY_DECIDED');
    expectError(() => reject(create({ flowType: 'HOSTED_PAGES' }).record, 'CUST', T0), 'BANK_NOT_CHOSEN');
  });

  it('expires an undecided payment 24 h after creation with RJCT / NOAS, stamped at expiry', () => {
    const start = atBank();
    expect(catchUp(start.record, seconds(86_399)).history).toEqual([]);
    const expired = catchUp(start.record, seconds(90_000));
    expect(expired.record.status).toBe('EXPIRED');
    expect(expired.record.isoCode).toBe('RJCT');
    expect(expired.record.isoReason).toBe('NOAS');
    expect(expired.history[0]?.timestamp).toEqual(start.record.expiresAt);
    expectError(
      () => approve(start.record, { preset: 'instant', completeAfterSeconds: null }, seconds(90_000)),
      'PAYMENT_ALREADY_DECIDED',
    );
  });

  it('cancels any unfinished payment, and refuses a finished one', () => {
    const cancelled = cancel(atBank().record, seconds(1));
    expect(cancelled.record.status).toBe('CANCELLED');
    expect(toPayment(cancelled.record, cancelled.history).isoStatus).toMatchObject({
      code: 'CANC',
      reason: { code: 'CUST', name: 'RequestedByCustomer' },
    });
    expectError(() => cancel(cancelled.record, seconds(2)), 'PAYMENT_NOT_CANCELLABLE');
    const done = approve(atBank().record, { preset: 'instant', completeAfterSeconds: null }, T0);
    expectError(() => cancel(done.record, seconds(1)), 'PAYMENT_NOT_CANCELLABLE');
    const pending = create({ flowType: 'HOSTED_PAGES' });
    expect(cancel(pending.record, seconds(1)).record.status).toBe('CANCELLED');
  });

  it('a payment due to complete is completed, not cancelled, when cancel comes after its due time', () => {
    const approved = approve(atBank().record, { preset: null, completeAfterSeconds: 2 }, T0);
    expectError(() => cancel(approved.record, seconds(3)), 'PAYMENT_NOT_CANCELLABLE');
  });

  it('adds paymentId and status to the merchant return URL, keeping its query', () => {
    const url = merchantReturnUrl('https://shop.example/return?order=42', 'pay_1', 'COMPLETED');
    expect(url).toBe('https://shop.example/return?order=42&paymentId=pay_1&status=COMPLETED');
    expect(merchantReturnUrl(null, 'pay_1', 'FAILED')).toBeNull();
  });

  it('presents the public Payment shape', () => {
    const record: PaymentRecord = atBank({
      reference: 'Order 42',
      fromAccount: { accountName: 'Jo' },
    }).record;
    const payment = toPayment(record, []);
    expect(payment).toMatchObject({
      paymentId: 'pay_test',
      status: 'AUTHORIZING',
      isoStatus: { code: 'PDNG', name: 'Pending' },
      amount: { value: '10.50', currency: 'GBP' },
      toAccount: { accountName: 'Acme Ltd', sortCode: '123456', accountNumber: '12345678' },
      fromAccount: { accountName: 'Jo' },
      reference: { reference: 'Order 42', endToEndId: 'E2E1' },
      flowType: 'API_ONLY',
      redirectUrl: 'https://shop.example/return?order=42',
    });
    expect(payment).not.toHaveProperty('completedAt');
    expect(payment).not.toHaveProperty('error');
  });
});
