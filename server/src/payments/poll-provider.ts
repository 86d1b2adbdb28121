import { isTerminal, MOCK_PROVIDER, type PaymentRecord } from '@pis/shared';
import { loadPayment } from './load-payment.ts';
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
  if (loaded.record.provider === MOCK_PROVIDER) return;
  if (!isTerminal(loaded.record.status)) {
    try {
      loaded = await refreshPayment(deps, { paymentId }, loaded, 'report');
    } catch (error) {
      deps.logger.warn({ err: error, paymentId, attempt }, 'provider poll failed; backing off');
    }
  }
  if (isTerminal(loaded.record.status)) return tellBankOfExpiry(deps, loaded.record);
  if (attempt >= POLL_MAX_ATTEMPTS || !deps.scheduler.providerPollDue) return;
  await deps.scheduler.providerPollDue(
    paymentId,
    attempt + 1,
    new Date(deps.clock.now().getTime() + pollDelayMs(attempt + 1)),
  );
}

/**
 * Our 24 h expiry, told to a bank that sets no deadline of its own (PaymentProvider.pollsFromStart):
 * else the customer could still approve there a payment we answered EXPIRED. A bank that refuses
 * (the customer approved in the last poll's interval) is an operator's alert: money may move
 * for a payment the merchant was told expired.
 */
async function tellBankOfExpiry(deps: PaymentsDeps, record: PaymentRecord): Promise<void> {
  const provider = deps.providers.get(record.provider);
  if (record.status !== 'EXPIRED' || !provider?.pollsFromStart) return;
  try {
    await provider.cancelPayment(record, deps.clock.now());
  } catch (error) {
    deps.logger.error(
      { err: error, paymentId: record.id, provider: record.provider },
      'the bank refused to cancel an expired payment: it may still be paid there',
    );
  }
}
