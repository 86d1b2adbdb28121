import { AppError, awaitsDecision, catchUp, isTerminal, type PaymentRecord } from '@pis/shared';
import { paymentOfExpiredLink } from '../links/customer-links.ts';
import type { PaymentProvider, ProviderNotification, StatusUpdate } from '../providers/payment-provider.ts';
import { applyPaymentEvent } from './apply-payment-event.ts';
import { openLink } from './customer-pages/open-link.ts';
import { loadPayment } from './load-payment.ts';
import { type OrganizationView, organizationView } from './organization-view.ts';
import { cancelClaimed } from './payment-store.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { startPolling } from './poll-provider.ts';
import { refreshPayment } from './refresh-payment.ts';

/**
 * The domain half of the routes every real provider shares (payments/customer-pages/
 * provider-routes.ts): our link that sends the customer to the bank, the customer back from the
 * bank, and the bank's push. The core decides here (is the payment still waiting, was it
 * cancelled meanwhile, is the merchant active) and applies the news through the one pipeline;
 * the adapter only says which payment and what the bank said (providers/payment-provider.ts).
 */

/** What a link or a return is about, for the page that answers it. */
export interface PaymentAtBank {
  record: PaymentRecord;
  organization: OrganizationView;
}

/** A provider whose customers approve at its bank (it takes our link's customers there), or 404. */
export function bankProvider(deps: Pick<PaymentsDeps, 'providers'>, code: string): PaymentProvider {
  const provider = deps.providers.get(code);
  if (!provider?.authorize || !provider.completeAuthorization) {
    throw new AppError('NOT_FOUND', 'This page does not exist');
  }
  return provider;
}

export type OpenedBankLink = PaymentAtBank &
  (
    | { kind: 'to-bank'; bankUrl: string }
    | { kind: 'finished' | 'not-awaiting' }
    /** The adapter refused (RATE_LIMITED: opened too often), or the bank could not be reached. */
    | { kind: 'refused' | 'unreachable'; error: unknown }
  );

/**
 * The customer opened our link (`/providers/:code/authorize/:token`): the bank's page for a
 * payment that still waits for them. A link of another provider's payment is as invalid as a
 * forged one. Throws the link's AppErrors (LINK_INVALID, LINK_EXPIRED, MERCHANT_SUSPENDED).
 */
export async function openBankLink(deps: PaymentsDeps, code: string, token: string): Promise<OpenedBankLink> {
  const provider = bankProvider(deps, code);
  const { record, organization } = await openLink(deps, token, 'bank');
  if (record.provider !== code) {
    throw new AppError('LINK_INVALID', 'This payment link is not valid. Ask the merchant for a new one.');
  }
  if (isTerminal(record.status)) return { kind: 'finished', record, organization };
  if (!awaitsDecision(record)) return { kind: 'not-awaiting', record, organization };
  let bankUrl: string | null | undefined;
  try {
    bankUrl = await provider.authorize?.(record, deps.clock.now());
  } catch (error) {
    const refused = error instanceof AppError && error.status < 500;
    if (!refused)
      deps.logger.warn({ err: error, paymentId: record.id, provider: code }, 'bank authorization failed');
    return { kind: refused ? 'refused' : 'unreachable', error, record, organization };
  }
  if (!bankUrl) return { kind: 'not-awaiting', record, organization };
  return { kind: 'to-bank', bankUrl, record, organization };
}

/**
 * An expired bank link's payment, to show what it was for and the way back (nothing is read at
 * the bank): only within a day of its expiry, its own provider's payment, an active merchant.
 */
export async function expiredBankLinkPayment(
  deps: PaymentsDeps,
  code: string,
  token: string,
): Promise<PaymentAtBank | null> {
  const paymentId = paymentOfExpiredLink(deps.config, token, 'bank', deps.clock.now());
  if (!paymentId) return null;
  try {
    const { record } = await loadPayment(deps.em.fork(), { paymentId });
    const organization = await organizationView(deps.em, record.organizationId);
    return record.provider === code && organization.active ? { record, organization } : null;
  } catch {
    return null;
  }
}

export type BankReturn = { kind: 'refused'; reason: string } | (PaymentAtBank & { kind: 'applied' });

/**
 * The customer back at `/providers/:code/callback`. The adapter verifies the bank's answer and
 * says which payment it is about. An approval is submitted only if the payment may still go
 * ahead: no cancel being told to the bank (the adapter marked the return taken first, and a
 * cancel checks that mark, so one of the two always sees the other), still waiting for the
 * customer by shared's rules (its 24 h not passed), and a merchant not suspended. What the bank
 * answered is applied through the one pipeline, and the payment is polled from then on.
 */
export async function completeBankReturn(
  deps: PaymentsDeps,
  code: string,
  callbackUrl: URL,
  /** The customer's IP address (told to a bank that asks it when the payment is submitted). */
  customerAddress?: string,
): Promise<BankReturn> {
  const provider = bankProvider(deps, code);
  const now = deps.clock.now();
  const outcome = await provider.completeAuthorization?.(callbackUrl, now);
  if (!outcome || outcome.kind === 'refused') {
    return { kind: 'refused', reason: outcome?.reason ?? 'no answer' };
  }
  let update: StatusUpdate;
  if (outcome.kind === 'granted') {
    const cancelling = await cancelClaimed(deps.em, outcome.paymentId);
    const { record } = await loadPayment(deps.em, { paymentId: outcome.paymentId });
    const stillWaiting = awaitsDecision(catchUp(record, now).record);
    if (cancelling || !stillWaiting || !(await organizationView(deps.em, record.organizationId)).active) {
      deps.logger.warn(
        { paymentId: record.id, status: record.status, provider: code },
        'bank return for a payment no longer waiting',
      );
      // Nothing was submitted: the adapter forgets the return it took, so a cancel is not
      // refused as "already at the bank".
      await provider.releaseGrant?.(record.id);
      return { kind: 'refused', reason: 'the payment no longer waits for the customer' };
    }
    if (!provider.submit) throw new Error(`provider ${code} granted an approval it cannot submit`);
    update = await provider.submit(record, outcome.grant, now, { customerAddress });
  } else {
    update = outcome.update;
  }
  const { record } = await applyPaymentEvent(deps, { paymentId: outcome.paymentId }, update, {
    whileClaimed: 'hold',
  });
  await startPolling(deps, record.id);
  return { kind: 'applied', record, organization: await organizationView(deps.em, record.organizationId) };
}

/**
 * The bank's push (`POST /api/providers/:code/event-notifications`): a pointer to a payment to
 * read now, never news applied as it is. Throws when the adapter finds it not genuine.
 */
export async function bankNotification(
  deps: PaymentsDeps,
  code: string,
  notification: ProviderNotification,
): Promise<void> {
  const provider = deps.providers.get(code);
  if (!provider?.paymentOfNotification) throw new AppError('NOT_FOUND', 'This page does not exist');
  const paymentId = await provider.paymentOfNotification(notification);
  if (!paymentId) return;
  try {
    const loaded = await loadPayment(deps.em, { paymentId });
    await refreshPayment(deps, { paymentId }, loaded, 'quiet');
  } catch (error) {
    // The poller reads it later: a notification is only a pointer.
    if (!(error instanceof AppError)) deps.logger.warn({ err: error, paymentId }, 'notification read failed');
  }
}
