import {
  CUSTOMER_ACTOR,
  type Payment,
  type SandboxApproveInput,
  type SandboxRejectInput,
  toPayment,
} from '@pis/shared';
import { advanceMockBankClock, approveAtMockBank, rejectAtMockBank } from './mock-bank-decisions.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';

/**
 * Sandbox helpers: a merchant's automated tests play the customer at the Mock bank without a
 * browser, with the same rules and outcome as the page. The answer is the updated payment.
 */
export async function sandboxApprove(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  input: SandboxApproveInput,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  // The merchant plays the customer: the entry names who did (their key or member), not "customer".
  const applied = await approveAtMockBank(deps, scope, input, caller.actor ?? CUSTOMER_ACTOR);
  return toPayment(applied.record, applied.history);
}

export async function sandboxReject(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  input: SandboxRejectInput,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const applied = await rejectAtMockBank(deps, scope, input.reason ?? null, caller.actor ?? CUSTOMER_ACTOR);
  return toPayment(applied.record, applied.history);
}

/** A test clock: the payment as it is after its own clock moved `seconds` ahead. */
export async function sandboxAdvance(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  seconds: number,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const applied = await advanceMockBankClock(deps, scope, seconds);
  return toPayment(applied.record, applied.history);
}
