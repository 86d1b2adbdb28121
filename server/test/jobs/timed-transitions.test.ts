import { PgBoss } from 'pg-boss';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { JOB_SCHEMA } from '../../src/jobs/job-queue.ts';
import { paymentDueJob } from '../../src/jobs/payment-due-job.ts';
import { CREATE_BODY, createWorkerTestApp, waitFor } from './worker-harness.ts';

/**
 * Timelines driven by pg-boss in real time: nobody reads the payment while it moves, so every
 * step seen here was applied by a worker. Statuses are read straight from the table.
 */
const harness = await createWorkerTestApp({ clock: systemClock });
const { app, factories, storedStatus, storedHistory } = harness;
const merchant = await factories.createMerchant();

async function createPayment(): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/payments',
    headers: merchant.headers,
    payload: CREATE_BODY,
  });
  expect(response.statusCode).toBe(201);
  return response.json().data.paymentId;
}

async function approve(paymentId: string, completeAfterSeconds: number): Promise<number> {
  const response = await app.inject({
    method: 'POST',
    url: `/api/payments/${paymentId}/mock-bank/approve`,
    headers: merchant.headers,
    payload: { completeAfterSeconds },
  });
  expect(response.statusCode).toBe(200);
  expect(response.json().data.status).toBe('AUTHORIZED');
  return Date.now();
}

/** The stored status once it is `status`, or whatever it is after `ms`. */
const statusWithin = (paymentId: string, status: string, ms: number) =>
  waitFor(
    () => storedStatus(paymentId),
    (s) => s === status,
    ms,
  );

const FULL_RUN_2S = ['PENDING', 'AUTHORIZING', 'AUTHORIZED', 'ACCEPTED', 'COMPLETED'];

describe('timed transitions on pg-boss (real time)', () => {
  it('completes a 2 s timeline through the worker alone, and the list shows it within 3 s of approval', async () => {
    const worker = await harness.startWorkerProcess();
    const paymentId = await createPayment();
    const approvedAt = await approve(paymentId, 2);

    const status = await statusWithin(paymentId, 'COMPLETED', 3_000);
    const completedAfter = Date.now() - approvedAt;
    expect(status).toBe('COMPLETED');
    expect(completedAfter).toBeLessThan(3_000);
    expect(await storedHistory(paymentId)).toEqual(FULL_RUN_2S);

    const list = await app.inject({ method: 'GET', url: '/api/payments', headers: merchant.headers });
    const listed = list.json().data.payments.find((p: { paymentId: string }) => p.paymentId === paymentId);
    expect(Date.now() - approvedAt).toBeLessThan(3_000);
    expect(listed.status).toBe('COMPLETED');
    expect(listed.isoStatus.code).toBe('ACSC');
    expect(listed.completedAt).toBeDefined();
    expect(listed.statusHistory.map((entry: { status: string }) => entry.status)).toEqual(FULL_RUN_2S);
    await worker.stop();
  });

  it('finishes a timeline whose worker stopped mid-way once a worker runs again (job kept in pg-boss)', async () => {
    const first = await harness.startWorkerProcess();
    const paymentId = await createPayment();
    await approve(paymentId, 4);
    // Steps at 2 s (ACCEPTED) and 4 s (COMPLETED): stop after the first, restart before the second.
    expect(await statusWithin(paymentId, 'ACCEPTED', 3_500)).toBe('ACCEPTED');
    await first.stop();
    const second = await harness.startWorkerProcess();
    expect(await statusWithin(paymentId, 'COMPLETED', 4_000)).toBe('COMPLETED');
    expect(await storedHistory(paymentId)).toEqual(FULL_RUN_2S);
    await second.stop();
  });

  it('catches up steps that fell due while no worker ran, as soon as one starts', async () => {
    const worker = await harness.startWorkerProcess();
    const paymentId = await createPayment();
    await approve(paymentId, 2);
    await worker.stop();
    // Both remaining steps fall due with no worker; their jobs are still queued.
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    expect(await storedStatus(paymentId)).toBe('AUTHORIZED');

    // Simulate the jobs having been lost with a crashed worker: only the sweep can help now.
    await harness.orm.em.getConnection().execute(`delete from pgboss.job where name = 'payment.due'`);
    const restarted = await harness.startWorkerProcess();
    expect(await statusWithin(paymentId, 'COMPLETED', 2_000)).toBe('COMPLETED');
    expect(await storedHistory(paymentId)).toEqual(FULL_RUN_2S);
    await restarted.stop();
  });

  it('applies each step once with two workers on one database', async () => {
    const workers = [await harness.startWorkerProcess(), await harness.startWorkerProcess()];
    const ids = await Promise.all(Array.from({ length: 20 }, () => createPayment()));
    await Promise.all(ids.map((id) => approve(id, 2)));

    const statuses = await waitFor(
      () => Promise.all(ids.map(storedStatus)),
      (all) => all.every((s) => s === 'COMPLETED'),
      4_000,
    );
    expect(statuses.every((s) => s === 'COMPLETED')).toBe(true);
    for (const id of ids) expect(await storedHistory(id)).toEqual(FULL_RUN_2S);
    await Promise.all(workers.map((worker) => worker.stop()));
  });

  it('drops a job whose payload can never parse (completed once, not retried) and still applies the valid ones beside it', async () => {
    const sender = new PgBoss({
      connectionString: harness.databaseUrl,
      schema: JOB_SCHEMA,
      supervise: false,
      migrate: false,
    });
    await sender.start();
    try {
      const paymentId = await createPayment();
      await approve(paymentId, 2);
      const badId = await sender.send(paymentDueJob.name, { paymentId: 42, dueAt: 'tomorrow' });
      const worker = await harness.startWorkerProcess();
      expect(await statusWithin(paymentId, 'COMPLETED', 4_000)).toBe('COMPLETED');
      const jobState = async () =>
        (
          await harness.orm.em
            .getConnection()
            .execute<{ state: string; retry_count: number }[]>(
              `select state, retry_count from ${JOB_SCHEMA}.job where id = ?`,
              [badId],
            )
        )[0];
      expect(await waitFor(jobState, (job) => job?.state === 'completed', 2_000)).toEqual({
        state: 'completed',
        retry_count: 0,
      });
      await worker.stop();
    } finally {
      await sender.stop({ graceful: false });
    }
  });
});
