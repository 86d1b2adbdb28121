import {
  type Actor,
  AppError,
  type ApprovalTiming,
  advanceClock,
  approve,
  byActor,
  MOCK_PROVIDER,
  type PaymentRecord,
  type RejectReason,
  reject,
  resolveRejectReason,
  resolveTiming,
} from '@pis/shared';
import { type AppliedEvent, applyPaymentEvent } from './apply-payment-event.ts';
import type { PaymentScope } from './load-payment.ts';
import type { PaymentsDeps } from './payments-deps.ts';

/**
 * The customer's decision at the Mock bank, shared by the Mock bank page and the sandbox
 * helpers so both follow the same rules: Mock payments only, a hosted payment still waiting
 * for its bank is 409 BANK_NOT_CHOSEN, a decided one 409 PAYMENT_ALREADY_DECIDED. Both run under
 * the row lock, so of two racing decisions (or a decision and a cancel) exactly one wins.
 */

const assertMockPayment = (payment: PaymentRecord) => {
  if (payment.provider !== MOCK_PROVIDER) {
    throw new AppError(
      'MOCK_BANK_ONLY',
      `Only payments with provider ${MOCK_PROVIDER} can be decided at the Mock bank or have their clock advanced`,
    );
  }
};

/** Approve: the chosen timing overrides the request's `mockBank`; without one, that, else instant. */
export function approveAtMockBank(
  deps: PaymentsDeps,
  scope: PaymentScope,
  chosen: ApprovalTiming | null,
  actor: Actor,
): Promise<AppliedEvent> {
  return applyPaymentEvent(deps, scope, (payment, now) => {
    assertMockPayment(payment);
    return byActor(actor, approve)(payment, resolveTiming(chosen, payment.mockBank), now);
  });
}

/** Reject: the chosen reason, else the request's `rejectReason`, else CUST. */
export function rejectAtMockBank(
  deps: PaymentsDeps,
  scope: PaymentScope,
  chosen: RejectReason | null,
  actor: Actor,
): Promise<AppliedEvent> {
  return applyPaymentEvent(deps, scope, (payment, now) => {
    assertMockPayment(payment);
    return byActor(actor, reject)(payment, resolveRejectReason(chosen, payment.mockBank), now);
  });
}

/**
 * A test clock: moves the Mock bank payment's own clock `seconds` ahead, through the same lock
 * and catch-up as every change (shared `advanceClock`). Mock payments only (a live payment's
 * time is the bank's); a finished one is 409 PAYMENT_FINISHED.
 */
export function advanceMockBankClock(
  deps: PaymentsDeps,
  scope: PaymentScope,
  seconds: number,
): Promise<AppliedEvent> {
  return applyPaymentEvent(deps, scope, (payment, now) => {
    assertMockPayment(payment);
    return advanceClock(payment, seconds, now);
  });
}
