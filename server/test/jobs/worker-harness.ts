import type { FastifyInstance } from 'fastify';
import { afterAll } from 'vitest';
import { buildApp } from '../../src/app.ts';
import type { Clock } from '../../src/clock.ts';
import type { Config } from '../../src/config.ts';
import { type Orm, openOrm } from '../../src/db/orm.ts';
import type { JobDeps } from '../../src/jobs/job-definition.ts';
import { type Background, startBackground } from '../../src/lifecycle/background.ts';
import { silentLogger } from '../../src/logger.ts';
import {
  catchUpDuePayments,
  catchUpPayments,
  findDuePaymentIds,
} from '../../src/payments/catch-up-payments.ts';
import { purgeExpiredIdempotencyKeys } from '../../src/payments/idempotency.ts';
import type { PaymentBatchScheduler } from '../../src/payments/payment-scheduler.ts';
import { noopPaymentScheduler, type PaymentScheduler } from '../../src/payments/payment-scheduler.ts';
import { purgeFinishedAnswers } from '../../src/payments/payment-store.ts';
import type { PaymentsDeps } from '../../src/payments/payments-deps.ts';
import { reconcileProviderClaims } from '../../src/payments/provider-claims.ts';
import { mockProviderRegistry } from '../../src/providers/default-providers.ts';
import { purgeRateLimitWindows } from '../../src/rate-limits/rate-limit-store.ts';
import { type Factories, factories } from '../helpers/factories.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';

export interface WorkerTestApp {
  /** The HTTP app as an API-only process (RUN_WORKER=false): it sends jobs, never works them. */
  app: FastifyInstance;
  orm: Orm;
  config: Config;
  /** The API process's pg-boss scheduler (what the app calls after a commit). */
  scheduler: PaymentScheduler;
  factories: Factories;
  databaseUrl: string;
  /** Starts a worker process's background (own ORM pool, own pg-boss), stopped after the file. */
  startWorkerProcess(options?: { clock?: Clock }): Promise<WorkerProcess>;
  /** Payments domain deps over this file's database (no scheduler unless given). */
  paymentsDeps(options?: { clock?: Clock; scheduler?: PaymentScheduler }): PaymentsDeps;
  /** Job deps over this file's database, for driving the sweep and catch-up directly. */
  jobDeps(options?: { clock?: Clock; scheduler?: PaymentBatchScheduler }): JobDeps;
  /** The payment's stored status, read without catching it up (no domain read). */
  storedStatus(paymentId: string): Promise<string>;
  /** Statuses of the stored history, oldest first, read without catching up. */
  storedHistory(paymentId: string): Promise<string[]>;
}

export interface WorkerProcess {
  background: Background;
  /** Graceful stop (as on SIGTERM). */
  stop(): Promise<void>;
}

/**
 * A file's own database with an API-only app and any number of worker "processes" (each its own
 * ORM pool and pg-boss instance, as separate processes would have), all torn down after the file.
 */
export async function createWorkerTestApp(options: { clock: Clock }): Promise<WorkerTestApp> {
  const database = await createTestDatabase();
  const orm = await openOrm(database.url, { poolMax: 6 });
  const config = testConfig({ databaseUrl: database.url });
  const logger = silentLogger();
  const closers: (() => Promise<void>)[] = [];

  const api = await startBackground({
    config,
    orm,
    databaseUrl: database.url,
    clock: options.clock,
    logger,
    runWorker: false,
  });
  const app = await buildApp({ config, orm, clock: options.clock, scheduler: api.scheduler });
  await app.ready();

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await app.close();
    await api.stop();
    await orm.close();
    await database.drop();
  });

  const paymentsDeps = ({
    clock = options.clock,
    scheduler = noopPaymentScheduler,
  }: {
    clock?: Clock;
    scheduler?: PaymentScheduler;
  } = {}): PaymentsDeps => ({
    em: orm.em,
    clock,
    config,
    providers: mockProviderRegistry(config),
    scheduler,
    logger,
  });

  return {
    app,
    orm,
    config,
    scheduler: api.scheduler,
    factories: factories(orm, options.clock),
    databaseUrl: database.url,
    async startWorkerProcess(workerOptions = {}) {
      const workerOrm = await openOrm(database.url, { poolMax: 6 });
      const background = await startBackground({
        config,
        orm: workerOrm,
        databaseUrl: database.url,
        clock: workerOptions.clock ?? options.clock,
        logger,
        runWorker: true,
      });
      let stopped: Promise<void> | undefined;
      const stop = () => {
        stopped ??= background.stop().then(() => workerOrm.close());
        return stopped;
      };
      closers.push(stop);
      return { background, stop };
    },
    paymentsDeps,
    jobDeps({ clock = options.clock, scheduler = noopBatchScheduler } = {}) {
      const deps = { em: orm.em, clock, scheduler, logger };
      return {
        clock,
        logger,
        catchUpPayments: (paymentIds) => catchUpPayments(deps, paymentIds),
        catchUpDuePayments: (limit) => catchUpDuePayments(deps, limit),
        findDuePaymentIds: (now, limit) => findDuePaymentIds(orm.em, now, limit),
        purgeExpiredIdempotencyKeys: (now) => purgeExpiredIdempotencyKeys(orm.em, now),
        reconcileProviderClaims: () => reconcileProviderClaims(paymentsDeps({ clock })),
        purgeRateLimitWindows: (now) => purgeRateLimitWindows(orm.em, now),
        purgeFinishedAnswers: (now) => purgeFinishedAnswers(orm.em, now),
        mail: { deliver: async () => {}, failed: async () => {} },
      };
    },
    async storedStatus(paymentId) {
      const rows = await orm.em
        .getConnection()
        .execute<{ status: string }[]>('select status from payment where id = ?', [paymentId]);
      return rows[0]?.status ?? 'MISSING';
    },
    async storedHistory(paymentId) {
      const rows = await orm.em
        .getConnection()
        .execute<{ status: string }[]>(
          'select status from payment_history where payment_id = ? order by seq',
          [paymentId],
        );
      return rows.map((row) => row.status);
    },
  };
}

const noopBatchScheduler: PaymentBatchScheduler = { ...noopPaymentScheduler, paymentsDue: async () => {} };

export const CREATE_BODY = {
  amount: { value: '12.34', currency: 'GBP' },
  toAccount: { accountName: 'Jobs Test Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
  reference: 'jobs test',
};

/** Polls `read` until `done` says so or `timeoutMs` passes; returns the last value read. */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
