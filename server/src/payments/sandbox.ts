import { type Payment, type SandboxApproveInput, type SandboxRejectInput, toPayment } from '@pis/shared';
import { approveAtMockBank, rejectAtMockBank } from './mock-bank-decisions.ts';
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
  const applied = await approveAtMockBank(
    deps,
    { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) },
    input,
  );
  return toPayment(applied.record, applied.history);
}

export async function sandboxReject(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  input: SandboxRejectInput,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const applied = await rejectAtMockBank(deps, scope, input.reason ?? null);
  return toPayment(applied.record, applied.history);
}
