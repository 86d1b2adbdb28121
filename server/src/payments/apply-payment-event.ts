import { LockMode } from '@mikro-orm/core';
import { AppError, type Change, catchUp, type HistoryRecord, type PaymentRecord } from '@pis/shared';
import { Payment, PaymentHistory, ProviderClaim } from '../db/entities/index.ts';
import type { ProviderClaimAction } from '../db/entities/provider-claim.entity.ts';
import { countTransitions } from '../observability/metrics.ts';
import { type LoadedPayment, type PaymentScope, paymentNotFound, scopeFilter } from './load-payment.ts';
import {
  insertHistoryRows,
  toHistoryRecord,
  toPaymentRecord,
  writeLifecycleState,
} from './payment-record.ts';
import type { PaymentsDeps } from './payments-deps.ts';

/**
 * How far a payment's own timeline may run: to `now`, or while a provider call is claimed and
 * unanswered, to the claim's time (its bank is being told about a decision made then).
 */
export const heldUntil = (claimedAt: Date | undefined, now: Date): Date =>
  claimedAt && claimedAt.getTime() < now.getTime() ? claimedAt : now;

/** A lifecycle step from shared (approve, reject, cancel, a provider's news...): pure. */
export type PaymentEvent = (payment: PaymentRecord, now: Date) => Change;

export interface AppliedEvent extends LoadedPayment {
  /** The entries this call appended (empty when nothing changed). */
  appended: HistoryRecord[];
}

/** Changes nothing beyond the catch-up every event starts with. */
export const catchUpOnly: PaymentEvent = (payment) => ({ record: payment, history: [] });

/** How an event meets a provider call that is claimed and not yet answered (see provider-claims.ts). */
export interface ApplyOptions {
  /**
   * `refuse` (the default: decisions such as approve, reject, a bank choice): 409
   * PROVIDER_CALL_IN_PROGRESS. `hold` (catch-up and provider news): the payment is only caught up
   * to the claim's time, so nothing overtakes the decision the provider is being told about.
   */
  whileClaimed?: 'refuse' | 'hold';
  /**
   * This event is the answer to the claim with this id: it is applied as of the claim's time,
   * the claim goes, and the payment is caught up to now. When that claim is no longer there
   * (the reconcile job settled it first), the event is not applied: only the catch-up is.
   */
  settles?: string;
  /** Under the same lock, after the event: the claim to record (provider-claims.ts only). */
  claim?: NewClaim;
}

export interface NewClaim {
  claimId: string;
  action: ProviderClaimAction;
  bankId: string | null;
}

export const providerCallInProgress = (action: ProviderClaimAction) =>
  new AppError(
    'PROVIDER_CALL_IN_PROGRESS',
    action === 'start'
      ? 'The payment is being sent to its bank right now; try again in a few seconds'
      : 'The payment is being cancelled at its bank right now; try again in a few seconds',
  );

/**
 * The one way a stored payment changes. In one transaction: lock the row (SELECT ... FOR
 * UPDATE, so concurrent events on one payment run one after the other and each sees the last
 * one's result), catch it up to now, apply the event, write the row and append the history.
 * After the commit the scheduler hears about the next due time.
 *
 * When the event refuses (an AppError such as PAYMENT_NOT_CANCELLABLE), the catch-up it saw is
 * still committed, so the refusal and every later reader agree on the status, then the error
 * is raised.
 *
 * A provider claim on the payment is read under the same lock: see ApplyOptions.
 */
export async function applyPaymentEvent(
  deps: PaymentsDeps,
  scope: PaymentScope,
  event: PaymentEvent,
  options: ApplyOptions = {},
): Promise<AppliedEvent> {
  let refusal: AppError | undefined;
  const outcome = await deps.em.fork().transactional(async (em) => {
    const row = await em.findOne(Payment, scopeFilter(scope), { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) throw paymentNotFound();
    const [rows, claim] = await Promise.all([
      em.find(PaymentHistory, { payment: row.id }, { orderBy: { seq: 'asc' } }),
      em.findOne(ProviderClaim, { payment: row.id }),
    ]);
    const before = toPaymentRecord(row);
    // Read after the lock: a step applied by whoever held it is never "in the future" of ours.
    const now = deps.clock.now();
    // While a claim stands, the payment's own time stops at the claim's.
    const until = heldUntil(claim?.claimedAt, now);
    let change: Change;
    try {
      if (claim && options.settles === claim.claimId) {
        // The provider answered: the decision takes effect when it was made, then time moves on.
        em.remove(claim);
        const atClaim = catchUp(before, claim.claimedAt);
        const settled = join(atClaim, event(atClaim.record, claim.claimedAt));
        change = join(settled, catchUp(settled.record, now));
      } else if (claim || options.settles !== undefined) {
        change = catchUp(before, until);
        if (claim && (options.whileClaimed ?? 'refuse') === 'refuse') {
          refusal = providerCallInProgress(claim.action);
        }
      } else {
        const caught = catchUp(before, now);
        change = join(caught, event(caught.record, now));
        if (options.claim) {
          em.create(ProviderClaim, { payment: row.id, ...options.claim, claimedAt: now });
        }
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      refusal = error;
      change = catchUp(before, until);
    }
    if (change.history.length > 0) {
      writeLifecycleState(row, change.record);
      insertHistoryRows(em, row.id, rows.length, change.history);
    }
    const history = [...rows.map(toHistoryRecord), ...change.history];
    return { before, record: change.record, history, appended: change.history };
  });
  countTransitions(outcome.record, outcome.appended);
  if (outcome.appended.length > 0) await announceNextDue(deps, outcome.before, outcome.record);
  if (refusal) throw refusal;
  return { record: outcome.record, history: outcome.history, appended: outcome.appended };
}

/** Two changes one after the other: the second's record, both histories. */
const join = (first: Change, second: Change): Change => ({
  record: second.record,
  history: [...first.history, ...second.history],
});

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
