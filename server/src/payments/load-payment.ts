import { AppError, type HistoryRecord, MESSAGES, type PaymentRecord } from '@pis/shared';
import type { EntityManager } from '../db/orm.ts';
import {
  type HistoryJson,
  historyRecordFromJson,
  type PaymentRow,
  paymentRecordFromRow,
  SELECT_PAYMENT_WITH_HISTORY,
} from './payment-record.ts';

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

/**
 * Reads a payment and its history without locking, in one query (the read every poll makes:
 * two ORM queries cost about three times as much CPU).
 */
export async function loadPayment(em: EntityManager, scope: PaymentScope): Promise<LoadedPayment> {
  const organizationId = scope.organizationId ?? null;
  const [row] = await em.execute<(PaymentRow & { history: HistoryJson[] })[]>(SELECT_PAYMENT_WITH_HISTORY, [
    scope.paymentId,
    organizationId,
    organizationId,
  ]);
  if (!row) throw paymentNotFound();
  return { record: paymentRecordFromRow(row), history: row.history.map(historyRecordFromJson) };
}
