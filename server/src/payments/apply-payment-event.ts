import { AppError, type Change, catchUp, type HistoryRecord, type PaymentRecord } from '@pis/shared';
import type { ProviderClaimAction } from '../db/entities/provider-claim.entity.ts';
import { catchUpHeld } from './catch-up-payments.ts';
import { changePayments, type Decision } from './change-payments.ts';
import { type LoadedPayment, type PaymentScope, paymentNotFound } from './load-payment.ts';
import type { LockedPayment } from './payment-store.ts';
import type { PaymentsDeps } from './payments-deps.ts';

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
 * One event on one stored payment, through the change pipeline (change-payments.ts): under the
 * row's lock it is caught up to now, the event applied, the row and its new history saved, and
 * the scheduler told about the next due time after the commit.
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
  const [outcome] = await changePayments(deps, { scope }, decideEvent(event, options), { withHistory: true });
  if (!outcome) throw paymentNotFound();
  if (outcome.refusal) throw outcome.refusal;
  return { record: outcome.change.record, history: outcome.history ?? [], appended: outcome.change.history };
}

const decideEvent =
  (event: PaymentEvent, options: ApplyOptions) =>
  (payment: LockedPayment, now: Date): Decision => {
    const { record: before, claim } = payment;
    let settles: Decision['claim'];
    try {
      if (claim && options.settles === claim.claimId) {
        // The provider answered: the decision takes effect when it was made, then time moves on.
        settles = { settles: claim.claimId };
        const atClaim = catchUp(before, claim.claimedAt);
        const settled = join(atClaim, event(atClaim.record, claim.claimedAt));
        return { change: join(settled, catchUp(settled.record, now)), claim: settles };
      }
      if (claim || options.settles !== undefined) {
        const change = catchUpHeld(payment, now);
        const refuse = claim && (options.whileClaimed ?? 'refuse') === 'refuse';
        return refuse ? { change, refusal: providerCallInProgress(claim.action) } : { change };
      }
      const caught = catchUpHeld(payment, now);
      const change = join(caught, event(caught.record, now));
      return options.claim
        ? { change, claim: { records: { ...options.claim, claimedAt: now } } }
        : { change };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { change: catchUpHeld(payment, now), refusal: error, ...(settles ? { claim: settles } : {}) };
    }
  };

/** Two changes one after the other: the second's record, both histories. */
const join = (first: Change, second: Change): Change => ({
  record: second.record,
  history: [...first.history, ...second.history],
});
