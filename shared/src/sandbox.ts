import { z } from 'zod';
import { ApprovalTiming, RejectReason } from './mock-bank.ts';
import { PaymentIdInput } from './payments.ts';

/** Sandbox test helpers: drive a Mock bank payment without a browser, as the page would. */
export const SandboxApproveInput = ApprovalTiming;
export type SandboxApproveInput = z.infer<typeof SandboxApproveInput>;
export const SandboxRejectInput = z.object({ reason: RejectReason.optional() });
export type SandboxRejectInput = z.infer<typeof SandboxRejectInput>;

export const SandboxApproveRequest = PaymentIdInput.extend(SandboxApproveInput.shape);
export const SandboxRejectRequest = PaymentIdInput.extend(SandboxRejectInput.shape);
