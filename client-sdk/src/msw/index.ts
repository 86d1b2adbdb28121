import type {
  ApprovalTiming as SharedApprovalTiming,
  MockBankDefinition as SharedMockBankDefinition,
  RejectReason as SharedRejectReason,
} from '@pis/shared';

export { createMockApi, type MockApi, type MockApiControls, type MockApiOptions } from './mock-api.ts';
export type { QueuedFailure } from './mock-handlers.ts';
export type { BankAuthorization } from './mock-store.ts';

/** Timing of a Mock bank approval: `{ preset: 'instant' | 'realistic' | 'slow' }` or `{ completeAfterSeconds }`. */
export type ApprovalTiming = SharedApprovalTiming;
/** ISO reason of a Mock bank rejection: `CUST` (default), `AM04`, `AC04`, `NARR`. */
export type RejectReason = SharedRejectReason;
/** A sandbox bank for `controls.seedBanks`, in the shape of the service's Mock bank catalogue. */
export type MockBankDefinition = SharedMockBankDefinition;
