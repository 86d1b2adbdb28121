import { isTerminal } from '@pis/shared';
import { afterEach, describe, expect, test } from 'vitest';
import { Payment, PaymentHistory, ProviderClaim } from '../../src/db/entities/index.ts';
import { catchUpPayment } from '../../src/payments/catch-up-payments.ts';
import { RECONCILE_CLAIM_AFTER_MS, reconcileProviderClaims } from '../../src/payments/provider-claims.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { blockingMockProvider } from './blocking-provider.ts';
import {
  type CreatedData,
  created,
  createPayment,
  domainDeps,
  getPayment,
  paymentBody,
  post,
  SECOND,
  tokenOf,
  trpcData,
  trpcFailure,
  trpcMutation,
  trpcQuery,
} from './payment-fixtures.ts';

/**
 * Provider calls are claimed under the payment's row lock before they are made (DESIGN.md
 * "Providers"). A provider double that blocks inside its call lets each race happen for real:
 * whatever arrives while the call is in flight meets the claim. Every test ends by comparing
 * the service's stored payment with what the bank was told.
 */
const bank = blockingMockProvider(testConfig());
const providers = createProviderRegistry([bank.provider]);
const { app, factories, clock, config, orm } = await createTestApp({ providers });
const { headers } = await factories.createMerchant();
const deps = domainDeps(orm, clock, config, { providers });
// A failed test must not leave the next one waiting behind a held call.
afterEach(() => bank.reset());

const cancel = (id: string) => post(app, headers, `/api/payments/${id}/cancel`);
const sandboxApprove = (id: string, body: Record<string, unknown> = {}) =>
  post(app, headers, `/api/payments/${id}/mock-bank/approve`, body);
const chooseBank = (token: string, bankId = 'mock-gb-albion') =>
  trpcMutation(app, 'pages.chooseBank', { token, bankId });

async function stored(paymentId: string) {
  const em = orm.em.fork();
  const row = await em.findOneOrFail(Payment, { id: paymentId });
  const history = await em.find(PaymentHistory, { payment: paymentId }, { orderBy: { seq: 'asc' } });
  const claim = await em.findOne(ProviderClaim, { payment: paymentId });
  return { row, statuses: history.map((entry) => entry.status), claim };
}

/** The service's final state agrees with what the bank was told, and nothing is left claimed. */
async function expectAgreesWithBank(paymentId: string) {
  const { row, statuses, claim } = await stored(paymentId);
  expect(claim).toBeNull();
  expect(statuses.filter((status) => isTerminal(status)).length).toBeLessThanOrEqual(1);
  const told = bank.toldAbout(paymentId);
  if (told === 'cancelled') expect(row.status).toBe('CANCELLED');
  if (told === 'started') expect(row.status).not.toBe('PENDING');
  if (told === 'started') expect(row.status).not.toBe('CANCELLED');
  if (told === 'nothing') expect(['PENDING', 'CANCELLED', 'EXPIRED']).toContain(row.status);
  return row.status;
}

const hostedPayment = async () => {
  const data = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
  return { paymentId: data.paymentId, token: tokenOf(data.redirectUrl) };
};

describe('cancel is claimed before the bank is told', () => {
  test('an approval (sandbox or page) while the cancel is at the bank is refused; one cancel call; CANCELLED', async () => {
    const payment = await created(app, headers);
    const gate = bank.hold();
    const cancelling = cancel(payment.paymentId);
    await gate.entered;

    const sandbox = expectFailure(await sandboxApprove(payment.paymentId), 409);
    expect(sandbox.code).toBe('PROVIDER_CALL_IN_PROGRESS');
    expect(sandbox.message).toMatch(/being cancelled/);
    const page = trpcFailure(
      await trpcMutation(app, 'pages.approve', {
        token: tokenOf(payment.redirectUrl),
        scenario: { preset: 'instant' },
      }),
      409,
    );
    expect(page.code).toBe('PROVIDER_CALL_IN_PROGRESS');
    // A second cancel makes no second call either.
    expect(expectFailure(await cancel(payment.paymentId), 409).code).toBe('PROVIDER_CALL_IN_PROGRESS');
    // Readers are not blocked.
    expect(expectSuccess<{ status: string }>(await getPayment(app, headers, payment.paymentId)).status).toBe(
      'AUTHORIZING',
    );

    gate.release();
    expect(expectSuccess<{ status: string }>(await cancelling).status).toBe('CANCELLED');
    expect(bank.callsFor(payment.paymentId, 'cancel')).toBe(1);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('CANCELLED');
  });

  test('a timed completion due while the cancel is at the bank waits for it: CANCELLED, never COMPLETED', async () => {
    const payment = await created(app, headers, paymentBody({ mockBank: { completeAfterSeconds: 2 } }));
    expectSuccess(await sandboxApprove(payment.paymentId));
    const gate = bank.hold();
    const cancelling = cancel(payment.paymentId);
    await gate.entered;

    clock.advance(10 * SECOND);
    // Neither the worker nor a reader moves the payment past the moment the cancel was decided.
    await catchUpPayment(deps, payment.paymentId);
    expect(expectSuccess<{ status: string }>(await getPayment(app, headers, payment.paymentId)).status).toBe(
      'AUTHORIZED',
    );
    expect((await stored(payment.paymentId)).row.status).toBe('AUTHORIZED');

    gate.release();
    expect(expectSuccess<{ status: string }>(await cancelling).status).toBe('CANCELLED');
    await catchUpPayment(deps, payment.paymentId);
    expect((await stored(payment.paymentId)).statuses).toEqual([
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'CANCELLED',
    ]);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('CANCELLED');
  });

  test('an approval that wins the lock first: the cancel is refused without calling the bank', async () => {
    const payment = await created(app, headers);
    expectSuccess(await sandboxApprove(payment.paymentId, { preset: 'instant' }));
    expect(expectFailure(await cancel(payment.paymentId), 409).code).toBe('PAYMENT_NOT_CANCELLABLE');
    expect(bank.callsFor(payment.paymentId, 'cancel')).toBe(0);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('COMPLETED');
  });

  test('concurrent cancel and approve, unblocked, many rounds: one wins, and the bank agrees', async () => {
    const payments = await Promise.all(Array.from({ length: 8 }, () => created(app, headers)));
    await Promise.all(
      payments.map(async ({ paymentId }) => {
        const [approved, cancelled] = await Promise.all([
          sandboxApprove(paymentId, { preset: 'instant' }),
          cancel(paymentId),
        ]);
        expect([approved.statusCode, cancelled.statusCode].sort()).toEqual([200, 409]);
        const status = await expectAgreesWithBank(paymentId);
        expect(status).toBe(cancelled.statusCode === 200 ? 'CANCELLED' : 'COMPLETED');
        expect(bank.callsFor(paymentId, 'cancel')).toBe(cancelled.statusCode === 200 ? 1 : 0);
      }),
    );
  });

  test('a bank that refuses the cancel: 502, the claim goes, and the payment can still be decided', async () => {
    const payment = await created(app, headers);
    bank.state.outcome = 'down';
    try {
      expect(expectFailure(await cancel(payment.paymentId), 502).code).toBe('PROVIDER_UNAVAILABLE');
    } finally {
      bank.state.outcome = 'ok';
    }
    expect((await stored(payment.paymentId)).claim).toBeNull();
    expectSuccess(await sandboxApprove(payment.paymentId, { preset: 'instant' }));
  });
});

describe('a bank choice is claimed before the provider starts the payment', () => {
  test('two choices at once (double click, two tabs): one start call, the other 409, AUTHORIZING', async () => {
    const payment = await hostedPayment();
    const gate = bank.hold();
    const first = chooseBank(payment.token);
    await gate.entered;
    const second = trpcFailure(await chooseBank(payment.token, 'mock-gb-albion'), 409);
    expect(second.code).toBe('PROVIDER_CALL_IN_PROGRESS');
    expect(second.message).toMatch(/being sent to its bank/);
    gate.release();
    const { redirectUrl } = trpcData<{ redirectUrl: string }>(await first);
    expect(redirectUrl).toMatch(/\/mock-bank\//);
    // Once decided, another choice is refused as before, still without a call.
    expect(trpcFailure(await chooseBank(payment.token), 409).code).toBe('PAYMENT_ALREADY_DECIDED');
    expect(bank.callsFor(payment.paymentId, 'start')).toBe(1);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('AUTHORIZING');
  });

  test('many concurrent choices, unblocked: exactly one start call per payment', async () => {
    const payments = await Promise.all(Array.from({ length: 6 }, () => hostedPayment()));
    await Promise.all(
      payments.map(async (payment) => {
        const answers = await Promise.all(Array.from({ length: 4 }, () => chooseBank(payment.token)));
        expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
        expect(answers.every((answer) => [200, 409].includes(answer.statusCode))).toBe(true);
        expect(bank.callsFor(payment.paymentId, 'start')).toBe(1);
        expect(await expectAgreesWithBank(payment.paymentId)).toBe('AUTHORIZING');
      }),
    );
  });

  test('a cancel racing a bank choice in flight is refused without a call; after it, the cancel reaches the bank', async () => {
    const payment = await hostedPayment();
    const gate = bank.hold();
    const choosing = chooseBank(payment.token);
    await gate.entered;
    expect(expectFailure(await cancel(payment.paymentId), 409).code).toBe('PROVIDER_CALL_IN_PROGRESS');
    expect(bank.callsFor(payment.paymentId, 'cancel')).toBe(0);
    gate.release();
    trpcData(await choosing);
    expect(expectSuccess<{ status: string }>(await cancel(payment.paymentId)).status).toBe('CANCELLED');
    expect(bank.callsFor(payment.paymentId, 'start')).toBe(1);
    expect(bank.callsFor(payment.paymentId, 'cancel')).toBe(1);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('CANCELLED');
  });

  test('cancel and bank choice at once, many rounds: the bank is never left with a payment we cancelled', async () => {
    const payments = await Promise.all(Array.from({ length: 8 }, () => hostedPayment()));
    await Promise.all(
      payments.map(async (payment) => {
        const [chosen, cancelled] = await Promise.all([chooseBank(payment.token), cancel(payment.paymentId)]);
        expect([200, 409]).toContain(chosen.statusCode);
        expect([200, 409]).toContain(cancelled.statusCode);
        const status = await expectAgreesWithBank(payment.paymentId);
        if (chosen.statusCode === 200 && cancelled.statusCode === 409) expect(status).toBe('AUTHORIZING');
        if (cancelled.statusCode === 200) expect(status).toBe('CANCELLED');
        expect(bank.callsFor(payment.paymentId, 'start')).toBeLessThanOrEqual(1);
      }),
    );
  });
});

describe('an unknown outcome is reconciled, not forgotten', () => {
  const pastReconcile = () => clock.advance(RECONCILE_CLAIM_AFTER_MS + SECOND);

  test('a start that timed out but reached the bank: 502, held, then AUTHORIZING after the reconcile job', async () => {
    const payment = await hostedPayment();
    bank.state.outcome = 'unknown';
    try {
      const failure = trpcFailure(await chooseBank(payment.token), 502);
      expect(failure.message).toMatch(/did not answer in time/);
    } finally {
      bank.state.outcome = 'ok';
    }
    expect((await stored(payment.paymentId)).row.status).toBe('PENDING');
    expect((await stored(payment.paymentId)).claim?.action).toBe('start');
    // Nobody starts it a second time while its fate is unknown.
    expect(trpcFailure(await chooseBank(payment.token), 409).code).toBe('PROVIDER_CALL_IN_PROGRESS');
    expect(bank.callsFor(payment.paymentId, 'start')).toBe(1);

    // Too early: the call may still be in flight.
    expect(await reconcileProviderClaims(deps)).toEqual({ settled: 0, dropped: 0, open: 0 });
    pastReconcile();
    expect(await reconcileProviderClaims(deps)).toMatchObject({ settled: 1, open: 0 });
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('AUTHORIZING');
    const session = trpcData<{ next: { mockBankUrl: string } | null }>(
      await trpcQuery(app, 'pages.hostedSession', { token: payment.token }),
    );
    expect(session.next?.mockBankUrl).toMatch(/\/mock-bank\//);
  });

  test('a start that never reached the bank is dropped: the customer can choose again', async () => {
    const payment = await hostedPayment();
    // The process died mid-call: the claim is all that is left.
    await orm.em.fork().insert(ProviderClaim, {
      payment: payment.paymentId,
      claimId: 'clm_crashed',
      action: 'start',
      bankId: 'mock-gb-albion',
      claimedAt: clock.now(),
    });
    pastReconcile();
    expect(await reconcileProviderClaims(deps)).toMatchObject({ dropped: 1 });
    expect((await stored(payment.paymentId)).claim).toBeNull();
    trpcData(await chooseBank(payment.token));
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('AUTHORIZING');
  });

  test('a cancel of a PENDING payment left by a crash is applied without calling the bank', async () => {
    const payment = await hostedPayment();
    await orm.em.fork().insert(ProviderClaim, {
      payment: payment.paymentId,
      claimId: 'clm_crashed_cancel',
      action: 'cancel',
      bankId: null,
      claimedAt: clock.now(),
    });
    pastReconcile();
    expect(await reconcileProviderClaims(deps)).toMatchObject({ settled: 1 });
    expect(bank.callsFor(payment.paymentId)).toBe(0);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('CANCELLED');
  });

  test('a cancel that timed out: approvals refused meanwhile, the job sends it again and applies it', async () => {
    const payment = await created(app, headers);
    bank.state.outcome = 'unknown';
    try {
      expect(expectFailure(await cancel(payment.paymentId), 502).code).toBe('PROVIDER_UNAVAILABLE');
      expect(expectFailure(await sandboxApprove(payment.paymentId), 409).code).toBe(
        'PROVIDER_CALL_IN_PROGRESS',
      );
      pastReconcile();
      // Still no answer: the claim stays for the next run (the job fails and is retried).
      expect(await reconcileProviderClaims(deps)).toMatchObject({ open: 1 });
    } finally {
      bank.state.outcome = 'ok';
    }
    expect(await reconcileProviderClaims(deps)).toMatchObject({ settled: 1, open: 0 });
    expect(bank.callsFor(payment.paymentId, 'cancel')).toBe(3);
    expect(await expectAgreesWithBank(payment.paymentId)).toBe('CANCELLED');
  });
});

describe('Idempotency-Key is claimed before the provider is called', () => {
  const withKey = (key: string) => ({ ...headers, 'idempotency-key': key });

  test('a duplicate while the first is at the provider: 409 IDEMPOTENCY_KEY_IN_PROGRESS; after: the first 201; one start', async () => {
    const gate = bank.hold();
    const first = createPayment(app, withKey('order-race-1'), paymentBody());
    await gate.entered;
    const duplicate = expectFailure(await createPayment(app, withKey('order-race-1'), paymentBody()), 409);
    expect(duplicate.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(duplicate.message).toMatch(/still being processed/);
    // Another body with the key is still a reuse.
    const other = paymentBody({ amount: { value: '99.00', currency: 'GBP' } });
    expect(expectFailure(await createPayment(app, withKey('order-race-1'), other), 409).code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    gate.release();
    const original = expectSuccess<CreatedData>(await first, 201);
    expect(
      expectSuccess<CreatedData>(await createPayment(app, withKey('order-race-1'), paymentBody()), 201),
    ).toEqual(original);
    expect(bank.callsFor(original.paymentId, 'start')).toBe(1);
    expect(await orm.em.fork().count(Payment, { reference: 'Order 1001', id: original.paymentId })).toBe(1);
  });

  test('five concurrent duplicates, unblocked: one payment, one start call', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        createPayment(app, withKey('order-race-2'), paymentBody({ reference: 'Race 2' })),
      ),
    );
    const ok = answers.filter((answer) => answer.statusCode === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((item) => item.statusCode !== 201)) {
      expect(expectFailure(answer, 409).code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    }
    const ids = new Set(ok.map((answer) => answer.json().data.paymentId));
    expect(ids.size).toBe(1);
    expect(await orm.em.fork().count(Payment, { reference: 'Race 2' })).toBe(1);
    expect(bank.callsFor([...ids][0] as string, 'start')).toBe(1);
  });

  test('a provider failure frees the key; an unknown outcome holds it until the claim is abandoned', async () => {
    bank.state.outcome = 'down';
    try {
      expectFailure(await createPayment(app, withKey('order-down'), paymentBody()), 502);
    } finally {
      bank.state.outcome = 'ok';
    }
    expectSuccess(await createPayment(app, withKey('order-down'), paymentBody()), 201);

    bank.state.outcome = 'unknown';
    try {
      expectFailure(await createPayment(app, withKey('order-unknown'), paymentBody()), 502);
    } finally {
      bank.state.outcome = 'ok';
    }
    expect(expectFailure(await createPayment(app, withKey('order-unknown'), paymentBody()), 409).code).toBe(
      'IDEMPOTENCY_KEY_IN_PROGRESS',
    );
    // Held well past the 15 s after which a dead request's claim is taken over...
    clock.advance(60 * SECOND);
    expect(expectFailure(await createPayment(app, withKey('order-unknown'), paymentBody()), 409).code).toBe(
      'IDEMPOTENCY_KEY_IN_PROGRESS',
    );
    // ...until the bank has surely settled.
    clock.advance(60 * SECOND + 1);
    expectSuccess(await createPayment(app, withKey('order-unknown'), paymentBody()), 201);
  });

  test('a claim whose request stopped answering (a killed instance) is taken over after 15 s, and nothing is created twice', async () => {
    const body = paymentBody({ reference: 'Orphan' });
    const claimToken = async () =>
      (
        await orm.em
          .getConnection()
          .execute<{ claim_token: string }[]>(
            `select claim_token from idempotency_key where key = 'order-orphan'`,
          )
      )[0]?.claim_token;
    // The first request stands still at the bank, as one whose process was killed there.
    const gate = bank.hold();
    const stuck = createPayment(app, withKey('order-orphan'), body);
    await gate.entered;
    const deadClaim = await claimToken();
    expect(expectFailure(await createPayment(app, withKey('order-orphan'), body), 409).code).toBe(
      'IDEMPOTENCY_KEY_IN_PROGRESS',
    );
    clock.advance(15 * SECOND + 1);
    // The retry takes the key over (and waits at the bank too)...
    const retry = createPayment(app, withKey('order-orphan'), body);
    await expect.poll(claimToken).not.toBe(deadClaim);
    gate.release();
    const retried = expectSuccess<CreatedData>(await retry, 201);
    // ...so the first, answered at last, cannot commit a second payment.
    expect(expectFailure(await stuck, 409).code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
    expect(await orm.em.fork().count(Payment, { reference: 'Orphan' })).toBe(1);
    expect(expectSuccess<CreatedData>(await createPayment(app, withKey('order-orphan'), body), 201)).toEqual(
      retried,
    );
  });
});
