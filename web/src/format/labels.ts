import type { PaymentStatus, RejectReason, ScenarioPreset } from '../api/page-types.ts';

/** ISO 20022 reason names as the spec gives them, with words a customer understands. */
export const REJECT_REASONS: ReadonlyArray<{ code: RejectReason; name: string; hint: string }> = [
  { code: 'CUST', name: 'RequestedByCustomer', hint: 'I do not want to make this payment' },
  { code: 'AM04', name: 'InsufficientFunds', hint: 'Not enough money in the account' },
  { code: 'AC04', name: 'ClosedAccountNumber', hint: 'The account is closed' },
  { code: 'NARR', name: 'Narrative', hint: 'Another reason' },
];

export const SCENARIO_PRESETS: ReadonlyArray<{ preset: ScenarioPreset; label: string; timing: string }> = [
  { preset: 'instant', label: 'Instant', timing: 'Completed at once' },
  { preset: 'realistic', label: 'Realistic', timing: 'Completed after 60 seconds' },
  { preset: 'slow', label: 'Slow', timing: 'Completed after 10 minutes' },
];

/** Headline and explanation of where a payment stands, for the result pages. */
export const statusText = (
  status: PaymentStatus,
  merchantName: string,
): { title: string; detail: string; tone: 'success' | 'neutral' | 'failure' } => {
  switch (status) {
    case 'COMPLETED':
      return { title: 'Payment completed', detail: `${merchantName} has been paid.`, tone: 'success' };
    case 'AUTHORIZED':
    case 'SUBMITTED':
    case 'ACCEPTED':
      return {
        title: 'Payment approved',
        detail: `Your bank is processing it. ${merchantName} will see it complete shortly.`,
        tone: 'success',
      };
    case 'FAILED':
      return {
        title: 'Payment rejected',
        detail: 'The payment was rejected. No money was taken.',
        tone: 'failure',
      };
    case 'CANCELLED':
      return {
        title: 'Payment cancelled',
        detail: `${merchantName} cancelled this payment. No money was taken.`,
        tone: 'failure',
      };
    case 'EXPIRED':
      return {
        title: 'Payment expired',
        detail: 'The payment was not approved in time. No money was taken.',
        tone: 'failure',
      };
    default:
      return {
        title: 'Payment in progress',
        detail: 'The payment has not been decided yet.',
        tone: 'neutral',
      };
  }
};
