import { AppError, type HistoryRecord, MESSAGES, type PaymentRecord } from '@pis/shared';
import { Payment, PaymentHistory } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { toHistoryRecord, toPaymentRecord } from './payment-record.ts';

/**
 * Which payment an operation is about. Merchant operations name their organization, so another
 * organization's payment is "not found"; the pages (holding a signed link) and the worker don't.
 */
export interface PaymentScope {
  paymentId: string;
  organizationId?: string | undefined;
}

export interface LoadedPayment {
  record: PaymentRecord;
  /** Every entry, oldest first. */
  history: HistoryRecord[];
}

export const paymentNotFound = () => new AppError('NOT_FOUND', MESSAGES.paymentNotFound);

export const scopeFilter = (scope: PaymentScope) =>
  scope.organizationId === undefined
    ? { id: scope.paymentId }
    : { id: scope.paymentId, organization: scope.organizationId };

/** Reads a payment and its history without locking (both queries at once). */
export async function loadPayment(em: EntityManager, scope: PaymentScope): Promise<LoadedPayment> {
  const fork = em.fork();
  const [row, history] = await Promise.all([
    fork.findOne(Payment, scopeFilter(scope)),
    fork.find(PaymentHistory, { payment: scope.paymentId }, { orderBy: { seq: 'asc' } }),
  ]);
  if (!row) throw paymentNotFound();
  return { record: toPaymentRecord(row), history: history.map(toHistoryRecord) };
}
