import { cancel, isTerminal, type Payment, providerNotConfigured, toPayment } from '@pis/shared';
import { applyPaymentEvent } from './apply-payment-event.ts';
import { loadPayment } from './load-payment.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';
import { providerUnavailable } from './refresh-payment.ts';

/**
 * POST /payments/{id}/cancel: CANCELLED / CANC / CUST, or 409 PAYMENT_NOT_CANCELLABLE once
 * finished. A payment already at its provider is withdrawn there first (outside the lock; if
 * the provider cannot be reached nothing changes and the caller gets 502). The decision itself
 * is made under the row lock, so a completion that wins the race makes this a 409.
 */
export async function cancelPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId };
  const { record } = await loadPayment(deps.em, scope);
  if (!isTerminal(record.status) && record.status !== 'PENDING') {
    const provider = deps.providers.get(record.provider);
    if (!provider) throw providerNotConfigured(record.provider);
    try {
      await provider.cancelPayment(record, deps.clock.now());
    } catch (error) {
      deps.logger.warn({ err: error, paymentId, provider: record.provider }, 'provider cancel failed');
      throw providerUnavailable();
    }
  }
  const applied = await applyPaymentEvent(deps, scope, cancel);
  return toPayment(applied.record, applied.history);
}
