import {
  AppError,
  type Change,
  cancelForSuspendedMerchant,
  expireAfterBankCancel,
  isTerminal,
  MOCK_PROVIDER,
  type PaymentRecord,
  paymentNow,
  providerDescriptor,
} from '@pis/shared';
import { applyPaymentEvent } from './apply-payment-event.ts';
import { type LoadedPayment, loadPayment } from './load-payment.ts';
import { organizationView } from './organization-view.ts';
import type { PaymentsDeps } from './payments-deps.ts';
import { refreshPayment } from './refresh-payment.ts';

/**
 * Our own polling of a real provider, the floor under its notifications (issue 19): a payment at
 * a real bank is read with backoff (1 s, 2 s, 4 s ... then every 5 minutes) until it finishes,
 * so it moves in the database, in lists and in waiting reads with no merchant read. A failed
 * read (outage, 429, garbage) keeps the last known status and the poll simply backs off further.
 * The Mock bank needs none: its timeline is computed.
 */
export const POLL_FIRST_MS = 1_000;
export const POLL_MAX_MS = 5 * 60_000;
/** About a day at the longest interval: our 24 h expiry or the bank finishes long before. */
export const POLL_MAX_ATTEMPTS = 300;

export const pollDelayMs = (attempt: number): number =>
  Math.min(POLL_FIRST_MS * 2 ** Math.max(0, attempt - 1), POLL_MAX_MS);

/** Asks for the first poll of a payment now at its real provider. */
export async function startPolling(deps: PaymentsDeps, paymentId: string): Promise<void> {
  if (!deps.scheduler.providerPollDue) return;
  try {
    await deps.scheduler.providerPollDue(paymentId, 1, new Date(deps.clock.now().getTime() + pollDelayMs(1)));
  } catch (error) {
    // Reads and notifications still refresh it; a later poll request starts it again.
    deps.logger.warn({ err: error, paymentId }, 'could not schedule the provider poll');
  }
}

/** One poll: read the provider, and schedule the next one unless the payment is finished. */
export async function pollProviderPayment(
  deps: PaymentsDeps,
  paymentId: string,
  attempt: number,
): Promise<void> {
  let loaded = await loadPayment(deps.em, { paymentId });
  if (loaded.record.provider === MOCK_PROVIDER || isTerminal(loaded.record.status)) return;
  try {
    loaded = await refreshPayment(deps, { paymentId }, loaded, 'report');
    if (expiryDueAtBank(loaded.record, deps.clock.now())) {
      loaded = await withdrawAtBank(deps, loaded, expireAfterBankCancel);
    } else if (await suspendedWhileAtBank(deps, loaded.record)) {
      loaded = await withdrawAtBank(deps, loaded, cancelForSuspendedMerchant);
    }
  } catch (error) {
    deps.logger.warn({ err: error, paymentId, attempt }, 'provider poll failed; backing off');
  }
  if (isTerminal(loaded.record.status) || !deps.scheduler.providerPollDue) return;
  // A payment only its bank can expire is polled until it is finished: else it would wait for
  // ever once the attempts ran out during a long bank outage.
  if (attempt >= POLL_MAX_ATTEMPTS && !expiryDueAtBank(loaded.record, deps.clock.now())) return;
  await deps.scheduler.providerPollDue(
    paymentId,
    attempt + 1,
    new Date(deps.clock.now().getTime() + pollDelayMs(attempt + 1)),
  );
}

/** Unapproved, at a bank that takes approval as final and has no deadline of ours (`expiryToldToBank`). */
const awaitingCustomerAtBank = (record: PaymentRecord): boolean =>
  !isTerminal(record.status) &&
  record.status !== 'PENDING' &&
  !record.approvedAt &&
  providerDescriptor(record.provider)?.expiryToldToBank === true;

/** Past its 24 h, at a bank that must cancel it first. */
const expiryDueAtBank = (record: PaymentRecord, now: Date): boolean =>
  awaitingCustomerAtBank(record) && paymentNow(record, now).getTime() >= record.expiresAt.getTime();

/**
 * Its merchant suspended (`org:set-active --active false`) while its customer could still approve
 * it at such a bank: our link and return refuse a suspended merchant's customers, but the bank's
 * page does not ask us. Found by the poll, which reads every such payment from its start (at
 * most POLL_MAX_MS apart), so it is withdrawn within minutes of the suspension.
 */
const suspendedWhileAtBank = async (deps: PaymentsDeps, record: PaymentRecord): Promise<boolean> =>
  awaitingCustomerAtBank(record) && !(await organizationView(deps.em, record.organizationId)).active;

/**
 * Our 24 h expiry, or a suspension, at a bank that sets no deadline of its own and takes approval
 * as final: the bank cancels the payment first, then `event` (EXPIRED, CANCELLED) is applied
 * here, so a customer can never approve there a payment we answered finished. The bank refusing
 * because the customer approved meanwhile: its status is read and applied instead. Not answered
 * (an outage, a timeout): the next poll asks again. A cancel is safe to repeat, so a crash
 * between the bank's yes and our write is too.
 */
async function withdrawAtBank(
  deps: PaymentsDeps,
  loaded: LoadedPayment,
  event: (record: PaymentRecord, now: Date) => Change,
): Promise<LoadedPayment> {
  const { record } = loaded;
  const provider = deps.providers.get(record.provider);
  if (!provider) return loaded;
  try {
    await provider.cancelPayment(record, deps.clock.now());
  } catch (error) {
    if (!(error instanceof AppError && error.kind === 'PAYMENT_NOT_CANCELLABLE')) throw error;
    deps.logger.info(
      { paymentId: record.id },
      'approved at the bank as it was withdrawn: its status decides',
    );
    return refreshPayment(
      deps,
      { paymentId: record.id },
      await loadPayment(deps.em, { paymentId: record.id }),
      'report',
    );
  }
  return applyPaymentEvent(deps, { paymentId: record.id }, event, { whileClaimed: 'hold' });
}
