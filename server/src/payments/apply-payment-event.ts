import { LockMode } from '@mikro-orm/core';
import { AppError, type Change, catchUp, type HistoryRecord, type PaymentRecord } from '@pis/shared';
import { Payment, PaymentHistory } from '../db/entities/index.ts';
import { type LoadedPayment, type PaymentScope, paymentNotFound, scopeFilter } from './load-payment.ts';
import {
  insertHistoryRows,
  toHistoryRecord,
  toPaymentRecord,
  writeLifecycleState,
} from './payment-record.ts';
import type { PaymentsDeps } from './payments-deps.ts';

/** A lifecycle step from shared (approve, reject, cancel, a provider's news...): pure. */
export type PaymentEvent = (payment: PaymentRecord, now: Date) => Change;

export interface AppliedEvent extends LoadedPayment {
  /** The entries this call appended (empty when nothing changed). */
  appended: HistoryRecord[];
}

/** Changes nothing beyond the catch-up every event starts with. */
export const catchUpOnly: PaymentEvent = (payment) => ({ record: payment, history: [] });

/**
 * The one way a stored payment changes. In one transaction: lock the row (SELECT ... FOR
 * UPDATE, so concurrent events on one payment run one after the other and each sees the last
 * one's result), catch it up to now, apply the event, write the row and append the history.
 * After the commit the scheduler hears about the next due time.
 *
 * When the event refuses (an AppError such as PAYMENT_NOT_CANCELLABLE), the catch-up it saw is
 * still committed, so the refusal and every later reader agree on the status, then the error
 * is raised.
 */
export async function applyPaymentEvent(
  deps: PaymentsDeps,
  scope: PaymentScope,
  event: PaymentEvent,
): Promise<AppliedEvent> {
  let refusal: AppError | undefined;
  const outcome = await deps.em.fork().transactional(async (em) => {
    const row = await em.findOne(Payment, scopeFilter(scope), { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw paymentNotFound();
    const rows = await em.find(PaymentHistory, { payment: row.id }, { orderBy: { seq: 'asc' } });
    const before = toPaymentRecord(row);
    // Read after the lock: a step applied by whoever held it is never "in the future" of ours.
    const now = deps.clock.now();
    let change = catchUp(before, now);
    try {
      const next = event(change.record, now);
      change = { record: next.record, history: [...change.history, ...next.history] };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refusal = error;
    }
    if (change.history.length > 0) {
      writeLifecycleState(row, change.record);
      insertHistoryRows(em, row.id, rows.length, change.history);
    }
    const history = [...rows.map(toHistoryRecord), ...change.history];
    return { before, record: change.record, history, appended: change.history };
  });
  if (outcome.appended.length > 0) await announceNextDue(deps, outcome.before, outcome.record);
  if (refusal) throw refusal;
  return { record: outcome.record, history: outcome.history, appended: outcome.appended };
}

/** Tells the scheduler about a new due time. Best effort: the sweep and every read catch up anyway. */
export async function announceNextDue(
  deps: Pick<PaymentsDeps, 'scheduler' | 'logger'>,
  before: PaymentRecord | null,
  after: PaymentRecord,
): Promise<void> {
  const due = after.nextDueAt;
  if (!due || before?.nextDueAt?.getTime() === due.getTime()) return;
  try {
    await deps.scheduler.paymentDue(after.id, due);
  } catch (error) {
    deps.logger.warn({ err: error, paymentId: after.id }, 'could not schedule the next step; the sweep will');
  }
}
