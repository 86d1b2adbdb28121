import {
  type Actor,
  byActor,
  type Change,
  type CreatedPayment,
  type CreatePaymentCommand,
  sendToProvider,
  toCreatedPayment,
} from '@pis/shared';
import { countCreated } from '../observability/metrics.ts';
import type { PaymentProvider } from '../providers/payment-provider.ts';
import { announcePaymentDue } from './change-payments.ts';
import { completeIdempotencyKey, type IdempotencyClaim } from './idempotency.ts';
import { deleteUnsentPayment, insertPayment } from './payment-store.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { claimedProviderCall, ProviderOutcomeUnknown } from './provider-claims.ts';

/**
 * An API_ONLY create at a provider that keeps state per payment (a real bank: `keepsPayments`),
 * row first (docs/decisions/071-row-before-the-bank.md):
 *
 * 1. The payment is stored PENDING (its expiry scheduled), before the bank hears of it.
 * 2. The start is claimed and made through the claim machinery (provider-claims.ts), exactly as a
 *    customer's bank choice on a hosted page: a definite answer settles the claim (AUTHORIZING).
 * 3. A definite refusal (the bank said no, or was not reachable) deletes the unsent payment: the
 *    merchant gets the 502 and no payment was created. An unknown outcome (a timeout, a crash of
 *    this process) leaves payment and claim: the reconcile job asks the bank, and what it made at
 *    the bank always has its payment here.
 *
 * The Mock bank keeps nothing per payment and stays on the one-statement path (create-payment.ts).
 */
export async function createAtRealProvider(
  deps: PaymentsDeps,
  provider: PaymentProvider,
  received: Change,
  command: CreatePaymentCommand,
  claim: IdempotencyClaim | undefined,
  /** Who creates it (an API key, a dashboard member), named on its entries as on the Mock bank path. */
  actor?: Actor,
): Promise<CreatedPayment> {
  const paymentId = received.record.id;
  await insertPayment(deps.em, received);
  if (received.record.nextDueAt) await announcePaymentDue(deps, paymentId, received.record.nextDueAt);

  const bankId = command.bankId ?? null;
  const decision = byActor(actor, (payment: Change['record'], at: Date) =>
    sendToProvider(payment, bankId, at),
  );
  let started: Awaited<ReturnType<typeof claimedProviderCall<string | null>>>;
  try {
    started = await claimedProviderCall(
      deps,
      { paymentId },
      {
        action: 'start',
        bankId,
        decision,
        call: async (claimed, claimedAt) =>
          (await provider.startPayment(decision(claimed, claimedAt).record, claimedAt)).customerUrl,
      },
    );
  } catch (error) {
    if (error instanceof ProviderOutcomeUnknown) throw error;
    // The bank did not act: the payment was never more than received, and goes again. One that
    // stays (its provider claim says the bank may have acted: the database failed after the
    // bank's answer) or that could not be deleted (the database away) is the reconcile job's, and
    // its outcome unknown to the merchant: their retry must not start a second payment at the
    // bank, so its Idempotency-Key is held (create-payment.ts), not freed.
    const deleted = await deleteUnsentPayment(deps.em.fork(), paymentId).catch((cause: unknown) => {
      deps.logger.warn({ err: cause, paymentId }, 'an unsent payment could not be deleted; its key is held');
      return false;
    });
    throw deleted ? error : new ProviderOutcomeUnknown();
  }
  const { applied, answer: customerUrl } = started;
  const created = toCreatedPayment(applied.record, customerUrl);
  if (claim) {
    // Started at the bank: a key that cannot be completed is held, as above, never freed.
    await deps.em
      .fork()
      .transactional((em) => completeIdempotencyKey(em, claim, paymentId, created))
      .catch(() => {
        throw new ProviderOutcomeUnknown();
      });
  }
  // The settle's own steps were counted by the change pipeline.
  countCreated(applied.record, received.history);
  return created;
}
