/**
 * The port the payments domain calls after a commit that gives a payment a (new) `nextDueAt`:
 * "this payment changes by itself at `dueAt`". jobs/ implements it with pg-boss. A lost call
 * only delays the step until the next sweep or read, so failures are logged, not raised.
 */
export interface PaymentScheduler {
  paymentDue(paymentId: string, dueAt: Date): Promise<void>;
  /** A provider claim on this payment is the reconcile job's from `dueAt` (see provider-claims.ts). */
  providerClaimDue(paymentId: string, dueAt: Date): Promise<void>;
  /** A payment at a real provider is due for its `attempt`th poll at `dueAt` (poll-provider.ts); absent: no polling. */
  providerPollDue?(paymentId: string, attempt: number, dueAt: Date): Promise<void>;
}

export type DuePayment = { paymentId: string; dueAt: Date };

/** The port plus a batch form, for the worker's batch catch-up (one job insert for many). */
export interface PaymentBatchScheduler extends PaymentScheduler {
  paymentsDue(due: readonly DuePayment[]): Promise<void>;
}

/** For processes and tests without a job queue: reads and sweeps still catch payments up. */
export const noopPaymentScheduler: PaymentScheduler = {
  paymentDue: async () => {},
  providerClaimDue: async () => {},
};
