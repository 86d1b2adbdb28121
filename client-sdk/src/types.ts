import type {
  BankList as BankListSchema,
  Bank as BankSchema,
  CreatedPayment as CreatedPaymentSchema,
  CreatePaymentInput as CreatePaymentInputSchema,
  ExportPaymentsQuery as ExportPaymentsQuerySchema,
  HistoryEntry as HistoryEntrySchema,
  ListBanksQuery as ListBanksQuerySchema,
  ListPaymentsQuery as ListPaymentsQuerySchema,
  MockBankScenario as MockBankScenarioSchema,
  NewCustomerLink as NewCustomerLinkSchema,
  PaymentList as PaymentListSchema,
  Payment as PaymentSchema,
  PaymentStatus as PaymentStatusSchema,
  ProviderEntry as ProviderEntrySchema,
  RejectReason as RejectReasonSchema,
  SandboxApproveInput as SandboxApproveInputSchema,
  TerminalStatus as TerminalStatusType,
} from '@pis/shared';
import type { z } from 'zod';

// Every type below comes from the zod schemas the service itself validates with (`@pis/shared`),
// so the client cannot drift from the contract. Inputs are the schemas' *input* side (an amount
// may be a number), results their *output* side (an amount is always a string).

/** Body of `payments.create`: the account paid, the amount, and optionally reference, flow, return URL... */
export type CreatePaymentInput = z.input<typeof CreatePaymentInputSchema>;
/** Result of `payments.create`: the id, the first status, and the `redirectUrl` to send the customer to. */
export type CreatedPayment = z.output<typeof CreatedPaymentSchema>;
/** A payment as read, listed, synced or cancelled, with its `statusHistory`. */
export type Payment = z.output<typeof PaymentSchema>;
/** One step of a payment's `statusHistory`. */
export type HistoryEntry = z.output<typeof HistoryEntrySchema>;
/** The service's own status of a payment. */
export type PaymentStatus = z.output<typeof PaymentStatusSchema>;
/** The statuses after which a payment never changes again. */
export type TerminalStatus = TerminalStatusType;
/** A payment whose status is final (what `waitForFinalStatus` resolves with). */
export type FinalPayment = Payment & { status: TerminalStatus };
/** One page of `payments.list`. */
export type PaymentList = z.output<typeof PaymentListSchema>;
/**
 * Filters and paging of `payments.list` (`limit` 1..100, default 20; `offset` default 0):
 * `status`, `provider`, `currency`, `createdFrom`/`createdTo` (RFC 3339, inclusive) and `search`
 * (a payment id or end-to-end id exactly, or part of a reference or payee name; at most 100 characters).
 */
export type ListPaymentsFilters = Partial<z.output<typeof ListPaymentsQuerySchema>>;
/** Filters of `payments.exportCsv`: those of `payments.list`, without paging. */
export type ExportPaymentsFilters = Partial<z.output<typeof ExportPaymentsQuerySchema>>;
/** Result of `payments.newLink`: a fresh customer link and when it expires. */
export type NewCustomerLink = z.output<typeof NewCustomerLinkSchema>;
/** A bank the customer can pay from. */
export type Bank = z.output<typeof BankSchema>;
/** One page of `banks.list`. */
export type BankList = z.output<typeof BankListSchema>;
/** Filters and paging of `banks.list` (`country` default GB, `limit` 1..100 default 100, `page` from 1). */
export type ListBanksFilters = Partial<z.output<typeof ListBanksQuerySchema>>;
/** A provider the organization can create payments with. */
export type Provider = z.output<typeof ProviderEntrySchema>;
/** The Mock bank scenario given at creation (`mockBank`). */
export type MockBankScenario = z.output<typeof MockBankScenarioSchema>;
/** Timing chosen when approving through the sandbox: a preset or `completeAfterSeconds`. */
export type SandboxApproveScenario = z.input<typeof SandboxApproveInputSchema>;
/** ISO reason given when rejecting through the sandbox (default `CUST`). */
export type SandboxRejectReason = z.output<typeof RejectReasonSchema>;

/** Options every call accepts. */
export interface CallOptions {
  /** Aborts the call (and its retries); the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}
