import { AppError, MESSAGES, PaymentIdInput, unusableInputDetails } from '@pis/shared';
import type { KeyPreload } from '../auth/authenticate-api-key.ts';
import type { EntityManager } from '../db/orm.ts';
import {
  decodePaymentRead,
  type LoadedPayment,
  loadPaymentIfAny,
  loadPaymentReadIfAny,
  type PaymentRead,
  type PaymentScope,
  paymentPreload,
} from './payment-store.ts';

export type { LoadedPayment, PaymentRead, PaymentScope };

export const paymentNotFound = () => new AppError('NOT_FOUND', MESSAGES.paymentNotFound);

/**
 * Reads a payment and its history without locking, in one prepared query (the read every poll
 * makes; see `npm run bench`).
 */
export async function loadPayment(em: EntityManager, scope: PaymentScope): Promise<LoadedPayment> {
  const loaded = await loadPaymentIfAny(em, scope);
  if (!loaded) throw paymentNotFound();
  return loaded;
}

/**
 * GET /payments/{id}'s read as a preload of the API key lookup (one round trip for both; see
 * KeyPreload): the caller's organization's payment with this id, or null. Only for input that
 * will pass validation, so a malformed id never reaches the database.
 */
export function preloadPayment(rawInput: unknown): KeyPreload | undefined {
  const parsed = PaymentIdInput.safeParse(rawInput);
  if (!parsed.success || unusableInputDetails(parsed.data).length > 0) return undefined;
  return paymentPreload(parsed.data.paymentId);
}

/** What preloadPayment read: not found (404) when the key's organization has no such payment. */
export function preloadedPaymentRead(json: unknown): PaymentRead {
  const read = decodePaymentRead(json as Parameters<typeof decodePaymentRead>[0] | null);
  if (!read) throw paymentNotFound();
  return read;
}

/** GET /payments/{id}'s own read (when the key lookup did not preload it), in one prepared query. */
export async function loadPaymentRead(
  em: EntityManager,
  scope: Parameters<typeof loadPaymentReadIfAny>[1],
): Promise<PaymentRead> {
  const read = await loadPaymentReadIfAny(em, scope);
  if (!read) throw paymentNotFound();
  return read;
}
