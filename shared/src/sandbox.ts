import { z } from 'zod';
import { MAX_CLOCK_ADVANCE_SECONDS } from './lifecycle.ts';
import { ApprovalTiming, RejectReason } from './mock-bank.ts';
import { PaymentIdInput } from './payments.ts';

/** Sandbox test helpers: drive a Mock bank payment without a browser, as the page would. */
export const SandboxApproveInput = ApprovalTiming;
export type SandboxApproveInput = z.infer<typeof SandboxApproveInput>;
export const SandboxRejectInput = z.object({ reason: RejectReason.optional() });
export type SandboxRejectInput = z.infer<typeof SandboxRejectInput>;

export const SandboxApproveRequest = PaymentIdInput.extend(SandboxApproveInput.shape);
export const SandboxRejectRequest = PaymentIdInput.extend(SandboxRejectInput.shape);

/** POST /payments/{id}/mock-bank/advance: how far the payment's own test clock moves. */
export const SandboxAdvanceInput = z.object({
  seconds: z
    .int({ error: 'must be a whole number of seconds' })
    .min(1, { error: 'must be at least 1' })
    .max(MAX_CLOCK_ADVANCE_SECONDS, { error: `must be at most ${MAX_CLOCK_ADVANCE_SECONDS} (a day)` })
    .meta({ description: 'Seconds to move the payment’s clock ahead, 1 to 86,400 (a day)', example: 3600 }),
});
export type SandboxAdvanceInput = z.infer<typeof SandboxAdvanceInput>;
export const SandboxAdvanceRequest = PaymentIdInput.extend(SandboxAdvanceInput.shape);
