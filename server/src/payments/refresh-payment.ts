import {
  AppError,
  catchUp,
  isTerminal,
  type PaymentStatus,
  paymentNow,
  providerNotConfigured,
} from '@pis/shared';
import type { StatusUpdate } from '../providers/payment-provider.ts';
import { applyPaymentEvent } from './apply-payment-event.ts';
import type { LoadedPayment, PaymentScope } from './load-payment.ts';
import type { PaymentsDeps } from './payments-deps.ts';

export type RefreshMode =
  /** GET: a provider failure is logged and the payment is still caught up with what we know. */
  | 'quiet'
  /** sync: the caller asked the provider explicitly, so a failure is reported (502). */
  | 'report';

/**
 * Whether a payment that changes only by its own timeline (a finished one never changes; a Mock
 * bank payment's provider has no news beyond the catch-up) has a step due: once its `nextDueAt`
 * (the real clock's, as stored and as the sweep reads it) has come.
 */
export const dueByItself = (payment: { status: PaymentStatus; nextDueAt: Date | null }, now: Date): boolean =>
  !isTerminal(payment.status) && payment.nextDueAt !== null && payment.nextDueAt.getTime() <= now.getTime();

export const providerUnavailable = () =>
  new AppError(
    'PROVIDER_UNAVAILABLE',
    'The payment provider could not be reached, so the payment was not refreshed. Try again shortly.',
  );

/**
 * Brings a loaded payment up to date: what became due by now (timeline steps, expiry) and the
 * provider's news. The provider is asked outside any transaction; its answer is applied under
 * the row lock, and only when it changes something, so a read with no news writes nothing.
 * Finished payments never change, and a payment still PENDING has not reached its provider.
 * Nothing changed: `loaded` itself (only its record is read); else the payment as changed.
 */
export async function refreshPayment<Loaded extends Pick<LoadedPayment, 'record'>>(
  deps: PaymentsDeps,
  scope: PaymentScope,
  loaded: Loaded,
  mode: RefreshMode,
): Promise<Loaded | LoadedPayment> {
  const { record } = loaded;
  if (isTerminal(record.status)) return loaded;
  // On the payment's own clock (a test clock may run ahead of the real one).
  const now = paymentNow(record, deps.clock.now());
  let update: StatusUpdate = catchUp;
  if (record.status !== 'PENDING') {
    const provider = deps.providers.get(record.provider);
    if (!provider) {
      if (mode === 'report') throw providerNotConfigured(record.provider);
    } else {
      try {
        update = await provider.readStatus(record, now);
      } catch (error) {
        deps.logger.warn(
          { err: error, paymentId: record.id, provider: record.provider },
          'provider status read failed',
        );
        if (mode === 'report') throw providerUnavailable();
      }
    }
  }
  const caught = catchUp(record, now);
  if (caught.history.length === 0 && update(caught.record, now).history.length === 0) return loaded;
  return applyPaymentEvent(deps, scope, update, { whileClaimed: 'hold' });
}
