import type { HistoryRecord, PaymentRecord } from '@pis/shared';
import { Payment, PaymentHistory } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/**
 * The one mapping between rows and the shared `PaymentRecord`. Lifecycle decisions are made on
 * records; rows are only read into records and written from them here.
 */

export function toPaymentRecord(row: Payment): PaymentRecord {
  return {
    id: row.id,
    organizationId: row.organization,
    status: row.status,
    isoCode: row.isoCode,
    isoReason: row.isoReason ?? null,
    provider: row.provider,
    bankId: row.bankId ?? null,
    amount: { value: row.amountValue, currency: row.currency },
    fromAccount: row.fromAccount ?? null,
    toAccount: row.toAccount,
    reference: { reference: row.reference, endToEndId: row.endToEndId },
    flowType: row.flowType,
    returnUrl: row.returnUrl ?? null,
    mockBank: row.mockBank ?? null,
    approvedAt: row.approvedAt ?? null,
    timing: row.timing ?? null,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? null } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    completedAt: row.completedAt ?? null,
    nextDueAt: row.nextDueAt ?? null,
  };
}

export function toHistoryRecord(row: PaymentHistory): HistoryRecord {
  return {
    status: row.status,
    isoCode: row.isoCode,
    isoReason: row.isoReason ?? null,
    provider: row.provider ?? null,
    details: row.details ?? null,
    timestamp: row.timestamp,
  };
}

/** A new payment row: the only place the merchant's immutable fields are written. */
export function insertPaymentRow(em: EntityManager, record: PaymentRecord): Payment {
  return em.create(Payment, {
    id: record.id,
    organization: record.organizationId,
    provider: record.provider,
    amountValue: record.amount.value,
    currency: record.amount.currency,
    fromAccount: record.fromAccount,
    toAccount: record.toAccount,
    reference: record.reference.reference,
    endToEndId: record.reference.endToEndId,
    flowType: record.flowType,
    returnUrl: record.returnUrl,
    mockBank: record.mockBank,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    ...lifecycleState(record),
    version: 1,
  });
}

/**
 * Writes what a lifecycle step may change onto a loaded row. Amount, accounts, reference and
 * the merchant's choices are not in this list: after creation nothing can change them.
 */
export function writeLifecycleState(row: Payment, record: PaymentRecord): void {
  Object.assign(row, lifecycleState(record));
}

const lifecycleState = (record: PaymentRecord) => ({
  status: record.status,
  isoCode: record.isoCode,
  isoReason: record.isoReason,
  bankId: record.bankId,
  approvedAt: record.approvedAt,
  timing: record.timing,
  errorCode: record.error?.code ?? null,
  errorMessage: record.error?.message ?? null,
  updatedAt: record.updatedAt,
  completedAt: record.completedAt,
  nextDueAt: record.nextDueAt,
});

/** Appends history entries after the `existing` ones (seq 1, 2, ... per payment). */
export function insertHistoryRows(
  em: EntityManager,
  paymentId: string,
  existing: number,
  entries: readonly HistoryRecord[],
): void {
  entries.forEach((entry, index) => {
    em.create(PaymentHistory, {
      payment: paymentId,
      seq: existing + index + 1,
      status: entry.status,
      isoCode: entry.isoCode,
      isoReason: entry.isoReason,
      provider: entry.provider,
      details: entry.details,
      timestamp: entry.timestamp,
    });
  });
}
