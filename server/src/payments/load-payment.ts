import {
  AppError,
  type HistoryRecord,
  MESSAGES,
  PaymentIdInput,
  type PaymentRecord,
  unusableInputDetails,
} from '@pis/shared';
import type { KeyPreload } from '../auth/authenticate-api-key.ts';
import type { EntityManager } from '../db/orm.ts';
import { preparedQuery } from '../db/prepared-query.ts';
import {
  historyRecordFromJson,
  PAYMENT_JSON,
  type PaymentJson,
  paymentRecordFromJson,
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
 * Reads a payment and its history without locking, in one prepared query (the read every poll
 * makes; see `npm run bench`).
 */
export async function loadPayment(em: EntityManager, scope: PaymentScope): Promise<LoadedPayment> {
  const organizationId = scope.organizationId ?? null;
  const [row] = await preparedQuery<{ payment: PaymentJson }>(em, SELECT_PAYMENT_WITH_HISTORY, [
    scope.paymentId,
    organizationId,
    organizationId,
  ]);
  return loadedPayment(row?.payment);
}

/**
 * GET /payments/{id}'s read as a preload of the API key lookup (one round trip for both; see
 * KeyPreload): the caller's organization's payment with this id, or null. Only for input that
 * will pass validation, so a malformed id never reaches the database.
 */
export function preloadPayment(rawInput: unknown): KeyPreload | undefined {
  const parsed = PaymentIdInput.safeParse(rawInput);
  if (!parsed.success || unusableInputDetails(parsed.data).length > 0) return undefined;
  return { name: 'payment', sql: PRELOAD_PAYMENT, values: [parsed.data.paymentId] };
}

const PRELOAD_PAYMENT = `select ${PAYMENT_JSON} from payment p where p.id = ? and p.organization_id = k.organization_id`;

/** What preloadPayment read: not found (404) when the key's organization has no such payment. */
export function loadedPayment(json: PaymentJson | null | undefined): LoadedPayment {
  if (!json) throw paymentNotFound();
  return { record: paymentRecordFromJson(json), history: json.history.map(historyRecordFromJson) };
}
