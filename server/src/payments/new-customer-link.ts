import { AppError, customerLinkRenewable, isTerminal, type NewCustomerLink } from '@pis/shared';
import { paymentLink } from '../links/customer-links.ts';
import { loadPayment } from './load-payment.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';
import { refreshPayment } from './refresh-payment.ts';

/**
 * POST /payments/{id}/link: a fresh customer link for an unfinished payment, to the page it
 * started with (the payment page for hosted flows, the Mock bank for a mock API_ONLY payment, our
 * link that sends on to the bank for a real provider's API_ONLY payment),
 * with that page's full lifetime from now. Links are signed, not stored: earlier links keep
 * their own expiry, and nothing about the payment changes. The payment is caught up first, so
 * one whose expiry has passed is EXPIRED here even when the worker lags.
 */
export async function newCustomerLink(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
): Promise<NewCustomerLink> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const { record } = await refreshPayment(deps, scope, await loadPayment(deps.em.fork(), scope), 'quiet');
  if (isTerminal(record.status)) {
    throw new AppError(
      'PAYMENT_FINISHED',
      `Payment is ${record.status}: a customer link would lead nowhere. Create a new payment instead.`,
    );
  }
  if (!customerLinkRenewable(record)) {
    throw new AppError(
      'LINK_NOT_RENEWABLE',
      `The customer authorises this ${record.provider} payment on the bank's own page, which only the bank can issue. ` +
        'Use a hosted flow to be able to send new links.',
    );
  }
  const link = paymentLink(deps.config, record, deps.clock.now());
  return { redirectUrl: link.url, expiresAt: link.expiresAt.toISOString() };
}
