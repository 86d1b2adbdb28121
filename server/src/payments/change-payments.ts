import { type AppError, type Change, type HistoryRecord, type PaymentRecord, paymentNow } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { countTransitions } from '../observability/metrics.ts';
import type { DuePayment, PaymentBatchScheduler, PaymentScheduler } from './payment-scheduler.ts';
import {
  deleteClaim,
  insertClaim,
  type LockedPayment,
  loadLockedPayments,
  lockPayments,
  type PaymentLock,
  type StoredClaim,
  saveSteps,
} from './payment-store.ts';

export interface ChangeDeps {
  em: EntityManager;
  clock: Clock;
  /** A batch scheduler is told about a batch's due times in one call. */
  scheduler: PaymentScheduler | PaymentBatchScheduler;
  logger: Logger;
}

/** What the shared state machine decided for one locked payment. */
export interface Decision {
  change: Change;
  /** The answered claim to remove, or a new one to record (provider-claims.ts). */
  claim?: { settles: string } | { records: StoredClaim };
  /** Raised after the commit: the catch-up in `change` is kept, so every reader agrees. */
  refusal?: AppError;
}

export interface Decided {
  before: PaymentRecord;
  change: Change;
  /** Every entry after the change, oldest first (with `withHistory`). */
  history: HistoryRecord[] | undefined;
  refusal: AppError | undefined;
}

/**
 * The one way stored payments change, for one payment or thousands: in one transaction, lock
 * the rows (FOR UPDATE: concurrent changes of a payment run one after the other, each seeing the
 * last one's result), read `now` and the rows once they are ours, decide each with the shared
 * state machine (`decide`, pure), save every step through the payment store in two statements,
 * and, after the commit, announce the next due times to the scheduler. A change that appends
 * nothing (and moves no test clock) writes nothing.
 */
export async function changePayments(
  deps: ChangeDeps,
  lock: PaymentLock,
  decide: (payment: LockedPayment, now: Date) => Decision,
  options: { withHistory?: boolean } = {},
): Promise<Decided[]> {
  const decided = await deps.em.fork().transactional(async (em) => {
    const ids = await lockPayments(em, lock);
    // Read after the lock: a step applied by whoever held it is never "in the future" of ours.
    const now = deps.clock.now();
    const locked = await loadLockedPayments(em, ids, options.withHistory ?? false);
    // Each payment decides on its own clock (a test clock may run ahead: shared `paymentNow`);
    // its next due time is stored on the real clock, which the scheduler and the sweep read.
    const results = locked.map((payment) => {
      const decision = decide(payment, paymentNow(payment.record, now));
      if (!changed(payment.record, decision.change)) return { payment, decision };
      return { payment, decision: { ...decision, change: onRealClock(decision.change) } };
    });
    await saveSteps(
      em,
      results
        .filter(({ payment, decision }) => changed(payment.record, decision.change))
        .map(({ payment, decision }) => ({
          record: decision.change.record,
          lastSeq: payment.lastSeq,
          history: decision.change.history,
        })),
    );
    for (const { payment, decision } of results) {
      const { claim } = decision;
      if (!claim) continue;
      if ('settles' in claim) await deleteClaim(em, payment.record.id, claim.settles);
      else await insertClaim(em, payment.record.id, claim.records);
    }
    return results.map(
      ({ payment, decision }): Decided => ({
        before: payment.record,
        change: decision.change,
        history: payment.history && [...payment.history, ...decision.change.history],
        refusal: decision.refusal,
      }),
    );
  });
  // Counted after the commit: a transaction that failed changed nothing.
  for (const { change } of decided) countTransitions(change.record, change.history);
  await announce(deps, decided, !('scope' in lock));
  return decided;
}

/**
 * A changed payment's next due time (the lifecycle computed it on the payment's clock) on the real
 * one: the same time without a test clock.
 */
const onRealClock = (change: Change): Change => {
  const { record } = change;
  if (record.clockOffsetSeconds === 0 || !record.nextDueAt) return change;
  return {
    ...change,
    record: { ...record, nextDueAt: new Date(record.nextDueAt.getTime() - record.clockOffsetSeconds * 1000) },
  };
};

/** Something to save: new entries, or a test clock moved on with nothing due in between. */
const changed = (before: PaymentRecord, change: Change) =>
  change.history.length > 0 || change.record.clockOffsetSeconds !== before.clockOffsetSeconds;

/** Tells the scheduler about new due times. Best effort: the sweep and every read catch up anyway. */
async function announce(deps: ChangeDeps, decided: readonly Decided[], batch: boolean): Promise<void> {
  const due: DuePayment[] = [];
  for (const { before, change } of decided) {
    const dueAt = change.record.nextDueAt;
    if (changed(before, change) && dueAt && before.nextDueAt?.getTime() !== dueAt.getTime()) {
      due.push({ paymentId: change.record.id, dueAt });
    }
  }
  const { scheduler } = deps;
  if (batch && 'paymentsDue' in scheduler) {
    try {
      await scheduler.paymentsDue(due);
    } catch (error) {
      deps.logger.warn({ err: error, payments: due.length }, 'could not schedule next steps; the sweep will');
    }
    return;
  }
  for (const { paymentId, dueAt } of due) await announcePaymentDue(deps, paymentId, dueAt);
}

/** One payment's next due time (a create's, or one change's). */
export async function announcePaymentDue(
  deps: Pick<ChangeDeps, 'scheduler' | 'logger'>,
  paymentId: string,
  dueAt: Date,
): Promise<void> {
  try {
    await deps.scheduler.paymentDue(paymentId, dueAt);
  } catch (error) {
    deps.logger.warn({ err: error, paymentId }, 'could not schedule the next step; the sweep will');
  }
}
