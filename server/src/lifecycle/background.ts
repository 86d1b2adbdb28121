import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import { startJobQueue } from '../jobs/job-queue.ts';
import { pgBossMailOutbox } from '../jobs/pg-boss-mail-outbox.ts';
import { createPgBossPaymentScheduler } from '../jobs/pg-boss-payment-scheduler.ts';
import { startWorker, type Worker } from '../jobs/worker.ts';
import type { Logger } from '../logger.ts';
import { mailJobDeps } from '../mail/mail-deliveries.ts';
import type { MailOutbox } from '../mail/mail-message.ts';
import { smtpMailSender } from '../mail/smtp-transport.ts';
import { catchUpDuePayments, catchUpPayments, findDuePaymentIds } from '../payments/catch-up-payments.ts';
import { purgeExpiredIdempotencyKeys } from '../payments/idempotency.ts';
import type { PaymentScheduler } from '../payments/payment-scheduler.ts';
import { purgeFinishedAnswers } from '../payments/payment-store.ts';
import { pollProviderPayment } from '../payments/poll-provider.ts';
import { reconcileProviderClaims } from '../payments/provider-claims.ts';
import { defaultProviderRegistry } from '../providers/default-providers.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { purgeRateLimitWindows } from '../rate-limits/rate-limit-store.ts';
import { STEP_BUDGET_MS } from './graceful-shutdown.ts';

export interface BackgroundDeps {
  config: Config;
  orm: Orm;
  databaseUrl: string;
  clock: Clock;
  logger: Logger;
  /** Work the job queues in this process (the server: RUN_WORKER; worker-main: always). */
  runWorker: boolean;
  /** The process's one provider registry (lifecycle/process.ts); default: one of its own. */
  providers?: ProviderRegistry;
}

export interface Background {
  /** For buildApp: tells pg-boss when a payment next changes by itself. */
  scheduler: PaymentScheduler;
  /** For buildApp: queues account mail as pg-boss jobs. */
  mail: MailOutbox;
  /** Called on shutdown after HTTP has stopped: stop fetching jobs, wait for running ones, close the queue. */
  stop(): Promise<void>;
}

/**
 * The one hook for background work, shared by `main.ts` (API + optional worker) and
 * `worker-main.ts` (worker only). Every process starts pg-boss (its own schema, same database)
 * to send jobs; only a worker process also works them (jobs/worker.ts).
 */
export async function startBackground(deps: BackgroundDeps): Promise<Background> {
  const logger = deps.logger.child({ component: 'jobs' });
  const queue = await startJobQueue({
    databaseUrl: deps.databaseUrl,
    logger,
    worker: deps.runWorker,
    migrate: deps.config.migrateOnStart,
  });
  const scheduler = createPgBossPaymentScheduler(queue, deps.clock);
  let worker: Worker | undefined;
  const mailSender = smtpMailSender(deps.config.mail);
  try {
    if (deps.runWorker) {
      const catchUp = { em: deps.orm.em, clock: deps.clock, scheduler, logger };
      const providerDeps = {
        ...catchUp,
        config: deps.config,
        providers: deps.providers ?? (await defaultProviderRegistry(deps.config, deps.orm, logger)),
      };
      worker = await startWorker(queue, {
        clock: deps.clock,
        logger,
        catchUpPayments: (paymentIds) => catchUpPayments(catchUp, paymentIds),
        catchUpDuePayments: (limit) => catchUpDuePayments(catchUp, limit),
        findDuePaymentIds: (now, limit) => findDuePaymentIds(deps.orm.em, now, limit),
        purgeExpiredIdempotencyKeys: (now) => purgeExpiredIdempotencyKeys(deps.orm.em, now),
        reconcileProviderClaims: () => reconcileProviderClaims(providerDeps),
        pollProviderPayment: (paymentId, attempt) => pollProviderPayment(providerDeps, paymentId, attempt),
        purgeRateLimitWindows: (now) => purgeRateLimitWindows(deps.orm.em, now),
        purgeFinishedAnswers: (now) => purgeFinishedAnswers(deps.orm.em, now),
        mail: mailJobDeps({ em: deps.orm.em, clock: deps.clock, logger, sender: mailSender }),
      });
    }
  } catch (error) {
    await queue.stop({ graceful: false });
    throw error;
  }
  return {
    scheduler,
    mail: pgBossMailOutbox({ em: deps.orm.em, clock: deps.clock, queue }),
    stop: async () => {
      // Within the background step's budget: handlers first, then pg-boss with what is left.
      if (worker) {
        const handlersMs = STEP_BUDGET_MS.background - STEP_BUDGET_MS.queue;
        let timer: NodeJS.Timeout | undefined;
        const late = await Promise.race([
          worker.stop().then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), handlersMs);
          }),
        ]);
        clearTimeout(timer);
        if (late)
          logger.warn({ budgetMs: handlersMs }, 'job handlers still running; stopping pg-boss anyway');
      }
      await queue.stop({ timeoutMs: STEP_BUDGET_MS.queue });
      mailSender.close();
    },
  };
}
