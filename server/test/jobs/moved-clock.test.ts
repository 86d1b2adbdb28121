import { PAYMENT_LIFETIME_MS } from '@pis/shared';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { houseKeeping, sweepDuePayments } from '../../src/jobs/sweeper.ts';
import { catchUpPayment } from '../../src/payments/catch-up-payments.ts';
import { FINISHED_ANSWER_KEPT_MS } from '../../src/payments/payment-store.ts';
import { settleAnswerStores } from '../../src/payments/read-payment.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { CREATE_BODY, createWorkerTestApp, waitFor } from './worker-harness.ts';

/**
 * Housekeeping, expiry and races with a moved clock. pg-boss's own `startAfter` runs on real time, so these
 * drive the sweep and the catch-up directly, or let a worker's sweeper (which reads the
 * injected clock) do it.
 */
const clock = new TestClock('2026-03-01T09:00:00.000Z');
const harness = await createWorkerTestApp({ clock });
const { app, factories, storedStatus, storedHistory } = harness;
const merchant = await factories.createMerchant();

async function createPayment(flowType: 'API_ONLY' | 'HOSTED_PAGES' = 'API_ONLY'): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/payments',
    headers: merchant.headers,
    payload: { ...CREATE_BODY, flowType },
  });
  expect(response.statusCode).toBe(201);
  return response.json().data.paymentId;
}

const dueJobs = async () => {
  const rows = await harness.orm.em
    .getConnection()
    .execute<{ count: string }[]>(`select count(*) from pgboss.job where name = 'payment.due'`);
  return Number(rows[0]?.count);
};

describe('housekeeping on the sweep', () => {
  it('frees Idempotency-Keys once their 24 h are over', async () => {
    const create = (key: string) =>
      app.inject({
        method: 'POST',
        url: '/api/payments',
        headers: { ...merchant.headers, 'idempotency-key': key },
        payload: CREATE_BODY,
      });
    const keys = async () =>
      Number(
        (
          await harness.orm.em
            .getConnection()
            .execute<{ count: string }[]>(`select count(*) from idempotency_key where key = 'sweep-key'`)
        )[0]?.count,
      );
    expect((await create('sweep-key')).statusCode).toBe(201);
    const deps = harness.jobDeps();
    await houseKeeping(deps);
    expect(await keys()).toBe(1);
    clock.advance(PAYMENT_LIFETIME_MS + 1_000);
    await houseKeeping(deps);
    // Its payment expired meanwhile: sweep it, so the expiry tests below start with nothing due.
    await sweepDuePayments(deps);
    expect(await keys()).toBe(0);
  });

  it('drops the stored answers of payments finished over a week ago, on the hourly beat only', async () => {
    const paymentId = await createPayment();
    const cancelled = await app.inject({
      method: 'POST',
      url: `/api/payments/${paymentId}/cancel`,
      headers: merchant.headers,
    });
    expect(cancelled.statusCode).toBe(200);
    const read = await app.inject({
      method: 'GET',
      url: `/api/payments/${paymentId}`,
      headers: merchant.headers,
    });
    expect(read.statusCode).toBe(200);
    await settleAnswerStores();
    const answers = async () =>
      Number(
        (
          await harness.orm.em
            .getConnection()
            .execute<{ count: string }[]>(`select count(*) from payment_answer where payment_id = ?`, [
              paymentId,
            ])
        )[0]?.count,
      );
    expect(await answers()).toBe(1);
    const deps = harness.jobDeps();
    clock.advance(FINISHED_ANSWER_KEPT_MS + 1_000);
    await houseKeeping(deps, { purgeAnswers: false });
    expect(await answers()).toBe(1);
    await houseKeeping(deps);
    expect(await answers()).toBe(0);
  });
});

describe('expiry', () => {
  it('expires undecided payments 24 h after creation through the sweep, without any read', async () => {
    const authorizing = await createPayment('API_ONLY');
    const pending = await createPayment('HOSTED_PAGES');
    const deps = harness.jobDeps();

    clock.advance(PAYMENT_LIFETIME_MS - 1_000);
    expect(await sweepDuePayments(deps)).toEqual({ caughtUp: 0, failed: 0 });
    expect(await storedStatus(authorizing)).toBe('AUTHORIZING');

    clock.advance(1_000);
    expect(await sweepDuePayments(deps)).toEqual({ caughtUp: 2, failed: 0 });
    expect(await storedStatus(authorizing)).toBe('EXPIRED');
    expect(await storedStatus(pending)).toBe('EXPIRED');
    expect(await storedHistory(authorizing)).toEqual(['PENDING', 'AUTHORIZING', 'EXPIRED']);
    expect(await storedHistory(pending)).toEqual(['PENDING', 'EXPIRED']);

    const read = await app.inject({
      method: 'GET',
      url: `/api/payments/${authorizing}`,
      headers: merchant.headers,
    });
    expect(read.json().data.isoStatus).toMatchObject({ code: 'RJCT', reason: { code: 'NOAS' } });
    // A second sweep finds nothing: expiry is applied once.
    expect(await sweepDuePayments(deps)).toEqual({ caughtUp: 0, failed: 0 });
  });

  it('expires through the sweeper of a running worker (its clock moved past the lifetime)', async () => {
    const paymentId = await createPayment();
    // The 24 h expiry is left to the sweep: no day-long deferred job per payment.
    const jobsBefore = await dueJobs();
    clock.advance(PAYMENT_LIFETIME_MS);
    const worker = await harness.startWorkerProcess();
    // The worker sweeps as it starts.
    expect(
      await waitFor(
        () => storedStatus(paymentId),
        (s) => s === 'EXPIRED',
        5_000,
      ),
    ).toBe('EXPIRED');
    expect(await dueJobs()).toBe(jobsBefore);
    await worker.stop();
  });
});

describe('scheduling', () => {
  it('queues one payment.due job per payment and due time, and none for a due time beyond the horizon', async () => {
    const before = await dueJobs();
    const dueAt = new Date(clock.now().getTime() + 60_000);
    await harness.scheduler.paymentDue('pay_sched', dueAt);
    await harness.scheduler.paymentDue('pay_sched', dueAt);
    await harness.scheduler.paymentDue('pay_sched', new Date(dueAt.getTime() + 1_000));
    await harness.scheduler.paymentDue('pay_sched', new Date(clock.now().getTime() + PAYMENT_LIFETIME_MS));
    expect(await dueJobs()).toBe(before + 2);
  });
});

describe('races on one payment (moved clock, real Postgres locks)', () => {
  it('applies every step exactly once when sweeps, due jobs and reads catch up the same payments at once', async () => {
    const ids = await Promise.all(Array.from({ length: 15 }, () => createPayment()));
    for (const id of ids) {
      const response = await app.inject({
        method: 'POST',
        url: `/api/payments/${id}/mock-bank/approve`,
        headers: merchant.headers,
        payload: { preset: 'realistic' },
      });
      expect(response.json().data.status).toBe('AUTHORIZED');
    }
    clock.advance(61_000);

    const a = harness.jobDeps();
    const b = harness.jobDeps();
    const deps = harness.paymentsDeps();
    await Promise.all([
      sweepDuePayments(a),
      sweepDuePayments(b),
      a.catchUpPayments(ids),
      b.catchUpPayments([...ids].reverse()),
      ...ids.flatMap((id) => [catchUpPayment(deps, id), a.catchUpPayments([id]), b.catchUpPayments([id])]),
      ...ids.map((id) =>
        app.inject({ method: 'GET', url: `/api/payments/${id}`, headers: merchant.headers }),
      ),
    ]);
    for (const id of ids) {
      expect(await storedHistory(id)).toEqual([
        'PENDING',
        'AUTHORIZING',
        'AUTHORIZED',
        'SUBMITTED',
        'ACCEPTED',
        'COMPLETED',
      ]);
    }
  });
});

describe('a sweep never waits on a process that holds rows', () => {
  it('skips a payment another connection holds, and takes it once that connection dies (as with kill -9)', async () => {
    const held = await createPayment();
    const free = await createPayment();
    // Another "process" holds the row lock, as a worker killed mid-transaction would.
    const other = new pg.Client({ connectionString: harness.databaseUrl });
    await other.connect();
    // Its termination below is the point of the test, not an error.
    other.on('error', () => {});
    await other.query('begin');
    await other.query('select id from payment where id = $1 for update', [held]);
    clock.advance(PAYMENT_LIFETIME_MS);
    const deps = harness.jobDeps();

    const started = Date.now();
    expect(await sweepDuePayments(deps)).toEqual({ caughtUp: 1, failed: 0 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await storedStatus(free)).toBe('EXPIRED');
    expect(await storedStatus(held)).toBe('AUTHORIZING');

    // The holder's connection ends without a commit: Postgres rolls back and frees the lock.
    const [pid] = (await other.query<{ pid: number }>('select pg_backend_pid() as pid')).rows;
    await harness.orm.em.getConnection().execute('select pg_terminate_backend(?)', [pid?.pid]);
    await other.end().catch(() => {});
    expect(await sweepDuePayments(deps)).toEqual({ caughtUp: 1, failed: 0 });
    expect(await storedStatus(held)).toBe('EXPIRED');
  });
});
