import { AppError, type Change, cancel, randomId, sendToProvider } from '@pis/shared';
import type { ProviderClaimAction } from '../db/entities/provider-claim.entity.ts';
import { ProviderOutcomeUnknownError } from '../providers/payment-provider.ts';
import {
  type AppliedEvent,
  applyPaymentEvent,
  catchUpOnly,
  type PaymentEvent,
} from './apply-payment-event.ts';
import { loadPayment, type PaymentScope } from './load-payment.ts';
import { type StoredClaim, staleClaims } from './payment-store.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { startPolling } from './poll-provider.ts';
import { providerUnavailable } from './refresh-payment.ts';

/**
 * Provider calls that decide something (start a payment at its bank, cancel it there) are
 * claimed before they are made (DESIGN.md "Providers"):
 *
 * 1. Under the payment's row lock, the decision is checked against the payment as it is now and
 *    a claim is recorded. A concurrent decision meets the claim and is refused (409
 *    PROVIDER_CALL_IN_PROGRESS) without calling anyone; the payment's own timeline is held at
 *    the claim's time, so a completion cannot overtake a cancel the bank is being told about.
 * 2. The provider is called outside any transaction.
 * 3. Its answer is applied through the same lock, as of the claim's time, and the claim goes.
 *    A definite failure drops the claim and changes nothing (502). An unknown outcome (the
 *    adapter's ProviderOutcomeUnknownError: a timeout, a connection lost after sending) leaves
 *    the claim for the reconcile job, which asks the provider and applies what it learns; so
 *    does a process that died mid-call.
 */

/** A claim older than this is the reconcile job's: the call that made it has given up or died. */
export const RECONCILE_CLAIM_AFTER_MS = 60_000;

export interface ClaimedCall<T> {
  action: ProviderClaimAction;
  bankId?: string | null;
  /** The decision as a lifecycle step: throws (an AppError) when the payment cannot take it now. */
  decision: PaymentEvent;
  /** The provider call, given the payment as it stood when claimed. */
  call: (claimed: Change['record'], claimedAt: Date) => Promise<T>;
}

/** 502 for a provider call whose answer never came: the payment is reconciled, not forgotten. */
export class ProviderOutcomeUnknown extends AppError {
  constructor() {
    super(
      'PROVIDER_UNAVAILABLE',
      'The payment provider did not answer in time. The payment is checked with the provider shortly and updated; read it again in a minute.',
    );
  }
}

/**
 * Claims, calls, settles (see above). Resolves to the payment after the decision and the
 * provider's answer; refusals and failures are AppErrors.
 */
export async function claimedProviderCall<T>(
  deps: PaymentsDeps,
  scope: PaymentScope,
  call: ClaimedCall<T>,
): Promise<{ applied: AppliedEvent; answer: T }> {
  const claimId = randomId('clm');
  // The decision is only checked here: it is applied when the provider has answered.
  const claimed = await applyPaymentEvent(
    deps,
    scope,
    (payment, now) => {
      call.decision(payment, now);
      return { record: payment, history: [] };
    },
    { claim: { claimId, action: call.action, bankId: call.bankId ?? null } },
  );
  const claimedAt = deps.clock.now();
  await scheduleReconcile(deps, claimed.record.id, claimedAt);

  let answer: T;
  try {
    answer = await call.call(claimed.record, claimedAt);
  } catch (error) {
    const context = { err: error, paymentId: claimed.record.id, action: call.action };
    if (error instanceof ProviderOutcomeUnknownError) {
      deps.logger.warn(context, 'provider outcome unknown; left to the reconcile job');
      throw new ProviderOutcomeUnknown();
    }
    deps.logger.warn(context, 'provider call failed; claim dropped');
    await applyPaymentEvent(deps, scope, catchUpOnly, { settles: claimId });
    throw error instanceof AppError ? error : providerUnavailable();
  }
  const applied = await applyPaymentEvent(deps, scope, call.decision, { settles: claimId });
  if (call.action === 'start') await pollFromStart(deps, applied.record);
  return { applied, answer };
}

/** A started payment whose provider is polled from the start (PaymentProvider.pollsFromStart). */
async function pollFromStart(deps: PaymentsDeps, record: Change['record']): Promise<void> {
  if (deps.providers.get(record.provider)?.pollsFromStart) await startPolling(deps, record.id);
}

async function scheduleReconcile(deps: PaymentsDeps, paymentId: string, claimedAt: Date): Promise<void> {
  try {
    await deps.scheduler.providerClaimDue(
      paymentId,
      new Date(claimedAt.getTime() + RECONCILE_CLAIM_AFTER_MS),
    );
  } catch (error) {
    // The next claim's job, or any later reconcile run, also takes every stale claim.
    deps.logger.warn({ err: error, paymentId }, 'could not schedule the provider claim check');
  }
}

/**
 * The reconcile job: for every claim older than RECONCILE_CLAIM_AFTER_MS, ask the provider what
 * became of the call and apply it. A start that reached the provider moves the payment to
 * AUTHORIZING; one that did not is dropped (the customer may choose a bank again). A cancel is
 * sent again (adapters make it safe to repeat) and applied, or dropped when the provider refuses
 * it. A provider that still cannot say leaves the claim for the next run: `open` counts those,
 * so the job can fail and be retried.
 */
export async function reconcileProviderClaims(
  deps: PaymentsDeps,
): Promise<{ settled: number; dropped: number; open: number }> {
  const staleBefore = new Date(deps.clock.now().getTime() - RECONCILE_CLAIM_AFTER_MS);
  const claims = await staleClaims(deps.em, staleBefore, 100);
  const result = { settled: 0, dropped: 0, open: 0 };
  for (const claim of claims) {
    const outcome = await reconcileClaim(deps, claim);
    result[outcome]++;
  }
  return result;
}

async function reconcileClaim(
  deps: PaymentsDeps,
  claim: StoredClaim & { paymentId: string },
): Promise<'settled' | 'dropped' | 'open'> {
  const scope = { paymentId: claim.paymentId };
  const { record } = await loadPayment(deps.em, scope);
  const provider = deps.providers.get(record.provider);
  const context = { paymentId: claim.paymentId, action: claim.action };
  if (!provider) {
    deps.logger.warn(context, 'no adapter for this provider here; claim left open');
    return 'open';
  }
  const now = deps.clock.now();
  let made: boolean;
  try {
    if (claim.action === 'start') {
      made = await provider.hasPayment({ ...record, bankId: claim.bankId ?? record.bankId }, now);
    } else {
      // Cancelling a payment still PENDING needs no provider (cancelPayment in cancel-payment.ts).
      if (record.status !== 'PENDING') await provider.cancelPayment(record, now);
      made = true;
    }
  } catch (error) {
    // A question that got no answer, or a cancel whose fate is unknown again: ask next time.
    if (claim.action === 'start' || error instanceof ProviderOutcomeUnknownError) {
      deps.logger.warn({ ...context, err: error }, 'provider claim still unresolved');
      return 'open';
    }
    // The provider refused the cancel: nothing happened there, so nothing happens here.
    deps.logger.warn({ ...context, err: error }, 'provider refused the reconciled cancel');
    made = false;
  }
  const decision: PaymentEvent = !made
    ? catchUpOnly
    : claim.action === 'start'
      ? (payment, at) => sendToProvider(payment, claim.bankId ?? null, at)
      : cancel;
  const applied = await applyPaymentEvent(deps, scope, decision, { settles: claim.claimId });
  if (made && claim.action === 'start') await pollFromStart(deps, applied.record);
  deps.logger.info({ ...context, made }, 'provider claim reconciled');
  return made ? 'settled' : 'dropped';
}
