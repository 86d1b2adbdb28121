import {
  AppError,
  isTerminal,
  MOCK_PROVIDER,
  merchantReturnUrl,
  type Outcome,
  type PaymentRecord,
} from '@pis/shared';
import { openCustomerLink } from '../../links/customer-links.ts';
import type { LinkClaims, LinkPurpose } from '../../links/link-token.ts';
import { type LoadedPayment, loadPayment } from '../load-payment.ts';
import { type OrganizationView, organizationView } from '../organization-view.ts';
import type { PaymentsDeps } from '../payments-deps.ts';
import { refreshPayment } from '../refresh-payment.ts';

export interface OpenedLink extends LoadedPayment {
  claims: LinkClaims;
  organization: OrganizationView;
}

/**
 * A suspended merchant's customers can neither look at nor act on its payments: what they would
 * start (a bank choice, an approval) is money movement for an organization an operator stopped.
 */
export const merchantSuspended = () =>
  new AppError(
    'MERCHANT_SUSPENDED',
    "This merchant can't take payments right now, so this payment can't go ahead. Nothing has been paid. Contact the merchant or return to their website.",
  );

/**
 * A customer page's only credential is its signed link: verify it, then load the payment it
 * names, caught up to now. A genuine link to a payment that no longer exists is as good as a
 * forged one; one whose merchant is suspended is refused (403 MERCHANT_SUSPENDED) before
 * anything else happens on it.
 */
export async function openLink(deps: PaymentsDeps, token: string, purpose: LinkPurpose): Promise<OpenedLink> {
  const claims = openCustomerLink(deps.config, token, purpose, deps.clock.now());
  const scope = { paymentId: claims.paymentId };
  let loaded: LoadedPayment;
  try {
    loaded = await loadPayment(deps.em, scope);
  } catch (error) {
    if (error instanceof AppError && error.kind === 'NOT_FOUND') {
      throw new AppError('LINK_INVALID', 'This payment link is not valid. Ask the merchant for a new one.');
    }
    throw error;
  }
  const organization = await organizationView(deps.em, loaded.record.organizationId);
  if (!organization.active) throw merchantSuspended();
  return { claims, organization, ...(await refreshPayment(deps, scope, loaded, 'quiet')) };
}

/** Decided (approved, or finished): the page shows the outcome instead of the actions. */
export const outcomeOf = (payment: PaymentRecord): Outcome | null =>
  isTerminal(payment.status) || payment.approvedAt
    ? { status: payment.status, returnUrl: merchantReturnUrl(payment.returnUrl, payment.id, payment.status) }
    : null;

/** The part both pages show. */
export const paymentSummary = (payment: PaymentRecord, merchantName: string, claims: LinkClaims) => ({
  paymentId: payment.id,
  merchantName,
  status: payment.status,
  amount: payment.amount,
  payee: {
    accountName: payment.toAccount.accountName,
    ...(payment.toAccount.bankName ? { bankName: payment.toAccount.bankName } : {}),
    ...(payment.toAccount.iban
      ? { iban: payment.toAccount.iban }
      : payment.toAccount.sortCode && payment.toAccount.accountNumber
        ? { sortCode: payment.toAccount.sortCode, accountNumber: payment.toAccount.accountNumber }
        : {}),
  },
  reference: payment.reference.reference,
  linkExpiresAt: claims.expiresAt.toISOString(),
  outcome: outcomeOf(payment),
  testPayment: payment.provider === MOCK_PROVIDER,
});
