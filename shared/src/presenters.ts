import type { HistoryRecord, PaymentRecord } from './lifecycle.ts';
import type { CreatedPayment, HistoryEntry, Payment } from './payments.ts';
import { isoStatusOf, type PaymentStatus } from './state-machine.ts';

/** The one mapping from a payment record to the public shapes of the API. */

export const toHistoryEntry = (entry: HistoryRecord): HistoryEntry => ({
  status: entry.status,
  isoStatus: isoStatusOf(entry.isoCode, entry.isoReason),
  timestamp: entry.timestamp.toISOString(),
  provider: entry.provider,
  details: entry.details,
  ...(entry.simulated ? { simulated: true } : {}),
  ...(entry.actor ? { actor: entry.actor } : {}),
});

export const toPayment = (record: PaymentRecord, history: readonly HistoryRecord[]): Payment => ({
  paymentId: record.id,
  status: record.status,
  isoStatus: isoStatusOf(record.isoCode, record.isoReason),
  provider: record.provider,
  ...(record.bankId ? { bankId: record.bankId } : {}),
  amount: { value: record.amount.value, currency: record.amount.currency },
  ...(record.fromAccount ? { fromAccount: record.fromAccount } : {}),
  toAccount: record.toAccount,
  reference: record.reference,
  flowType: record.flowType,
  ...(record.returnUrl ? { redirectUrl: record.returnUrl } : {}),
  createdAt: record.createdAt.toISOString(),
  updatedAt: record.updatedAt.toISOString(),
  expiresAt: record.expiresAt.toISOString(),
  ...(record.completedAt ? { completedAt: record.completedAt.toISOString() } : {}),
  ...(record.error ? { error: record.error } : {}),
  statusHistory: history.map(toHistoryEntry),
});

/** `redirectUrl` here is the customer link (hosted page or bank page), not the merchant's URL. */
export const toCreatedPayment = (record: PaymentRecord, customerUrl: string | null): CreatedPayment => ({
  paymentId: record.id,
  status: record.status,
  isoStatus: isoStatusOf(record.isoCode, record.isoReason),
  redirectUrl: customerUrl,
  provider: record.provider,
  ...(record.bankId ? { bankId: record.bankId } : {}),
  amount: { value: record.amount.value, currency: record.amount.currency },
  createdAt: record.createdAt.toISOString(),
  expiresAt: record.expiresAt.toISOString(),
});

/** The merchant's return URL with `paymentId` and `status` added to its existing query. */
export const merchantReturnUrl = (returnUrl: string | null, paymentId: string, status: PaymentStatus) => {
  if (!returnUrl) return null;
  const url = new URL(returnUrl);
  url.searchParams.set('paymentId', paymentId);
  url.searchParams.set('status', status);
  return url.toString();
};
