import { type DashboardPayment, MOCK_PROVIDER, type Payment, paymentActions } from '@pis/shared';
import { customerLink, type LinkConfig } from '../links/customer-links.ts';
import type { LinkPurpose } from '../links/link-token.ts';
import { loadPayment } from './load-payment.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';
import { getPayment, type WaitingRead } from './read-payment.ts';

/** Statuses in which the customer has not decided yet, so their page still has something to do. */
const WAITING_FOR_CUSTOMER = new Set<Payment['status']>(['PENDING', 'AUTHORIZING']);

/**
 * A payment's dashboard page: GET /payments/{id}'s read (caught up, refreshed, scoped to the
 * organization; waiting for a change when asked, the same way), which actions apply, and the
 * customer's page while it can still be used, for a member who may hand it out (`showLink`:
 * the roles that may re-send a link; a Viewer opening it could approve as the customer).
 */
export async function dashboardPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  wait?: WaitingRead,
  { showLink = true }: { showLink?: boolean } = {},
): Promise<DashboardPayment> {
  const { payment, etag } = await getPayment(deps, caller, paymentId, wait);
  const view: DashboardPayment = {
    payment,
    etag,
    actions: paymentActions(payment),
    customerLink: showLink ? customerPage(deps.config, payment, deps.clock.now()) : null,
  };
  if (payment.provider === MOCK_PROVIDER) return view;
  // The bank's own statuses are not in the API's payment: read as stored, just refreshed above.
  const { record } = await loadPayment(deps.em, { paymentId, organizationId: caller.organizationId });
  return { ...view, atBank: record.providerStatus ?? {} };
}

/**
 * The very link the merchant was given at creation (same claims, so the same signed token):
 * the hosted page for the hosted flows, the Mock bank's page for an API_ONLY Mock payment.
 * Never a fresh one, so the dashboard cannot extend a link's life. Another provider's page is
 * the bank's own, which we do not hold.
 */
function customerPage(config: LinkConfig, payment: Payment, now: Date): DashboardPayment['customerLink'] {
  if (!WAITING_FOR_CUSTOMER.has(payment.status)) return null;
  const purpose: LinkPurpose | undefined =
    payment.flowType !== 'API_ONLY' ? 'hosted' : payment.provider === MOCK_PROVIDER ? 'mock-bank' : undefined;
  if (!purpose) return null;
  const link = customerLink(config, purpose, payment.paymentId, new Date(payment.createdAt));
  if (link.expiresAt.getTime() <= now.getTime()) return null;
  return { url: link.url, expiresAt: link.expiresAt.toISOString() };
}
