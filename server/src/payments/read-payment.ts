import { type Payment, toPayment } from '@pis/shared';
import { loadedPayment, loadPayment } from './load-payment.ts';
import type { PaymentJson } from './payment-record.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';
import { refreshPayment } from './refresh-payment.ts';

/**
 * GET /payments/{id}: caught up to now and refreshed from the provider first, so no reader sees
 * an overdue status; a provider failure during that refresh is not the reader's problem.
 */
export async function getPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  /** What the API key lookup read with `preloadPayment` (undefined: nothing was preloaded). */
  preloaded?: unknown,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId };
  const loaded =
    preloaded === undefined
      ? await loadPayment(deps.em, scope)
      : loadedPayment(preloaded as PaymentJson | null);
  const current = await refreshPayment(deps, scope, loaded, 'quiet');
  return toPayment(current.record, current.history);
}

/**
 * POST /payments/{id}/sync: asks the provider now. Its failure is reported as 502
 * PROVIDER_UNAVAILABLE (the payment is unchanged); an approved provider this process has no
 * adapter for is 503 PROVIDER_NOT_CONFIGURED. Finished and still-PENDING payments have nothing
 * to ask, and are returned caught up.
 */
export async function syncPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId };
  const current = await refreshPayment(deps, scope, await loadPayment(deps.em, scope), 'report');
  return toPayment(current.record, current.history);
}
