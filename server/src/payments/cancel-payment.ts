import { byActor, cancel, type Payment, providerNotConfigured, toPayment } from '@pis/shared';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';
import { claimedProviderCall } from './provider-claims.ts';

/**
 * POST /payments/{id}/cancel: CANCELLED / CANC / CUST, or 409 PAYMENT_NOT_CANCELLABLE once
 * finished. The cancel is claimed under the row lock first, so a customer's approval or a bank
 * choice racing it is refused (409 PROVIDER_CALL_IN_PROGRESS) and a timed completion waits;
 * a payment already at its provider is then withdrawn there, and the cancel applied. If the
 * provider cannot be reached nothing changes and the caller gets 502.
 */
export async function cancelPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const { applied } = await claimedProviderCall(deps, scope, {
    action: 'cancel',
    decision: byActor(caller.actor, cancel),
    call: async (claimed, claimedAt) => {
      // Still PENDING: no provider has heard of it.
      if (claimed.status === 'PENDING') return;
      const provider = deps.providers.get(claimed.provider);
      if (!provider) throw providerNotConfigured(claimed.provider);
      await provider.cancelPayment(claimed, claimedAt);
    },
  });
  return toPayment(applied.record, applied.history);
}
