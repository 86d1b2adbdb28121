import type { EuAccount } from './accounts.ts';
import type { Xs2aPayment } from './payments.ts';

/**
 * The answers' bodies, in one place. How a rejection says why, in the standard's own fields:
 * - no funds: `transactionStatus: RJCT` with `fundsAvailable: false` (the SCA was `finalised`);
 * - the customer's refusal: `RJCT` without `fundsAvailable`, and the SCA status `failed`
 *   (`GET .../authorisations/{authorisationId}`);
 * each with a `psuMessage` saying it in words. `fundsAvailable: true` once the account is debited.
 */
export const PSU_MESSAGES = {
  refused: 'The customer rejected the payment at the bank.',
  noFunds: 'The chosen account does not hold enough money for this payment.',
  cancelled: 'The payment was cancelled before the customer authorised it.',
} as const;

export function statusView(payment: Xs2aPayment) {
  const psuMessage =
    payment.status === 'RJCT'
      ? payment.fundsAvailable === false
        ? PSU_MESSAGES.noFunds
        : PSU_MESSAGES.refused
      : payment.status === 'CANC'
        ? PSU_MESSAGES.cancelled
        : undefined;
  return {
    transactionStatus: payment.status,
    ...(payment.fundsAvailable === null ? {} : { fundsAvailable: payment.fundsAvailable }),
    ...(psuMessage ? { psuMessage } : {}),
  };
}

/**
 * The payment as initiated, with its status. The document requires `debtorAccount`: until the
 * customer has chosen one (no account in the request), it is `{currency: "EUR"}` only.
 */
export function paymentView(payment: Xs2aPayment, accounts: EuAccount[]) {
  const chosen = accounts.find((account) => account.id === payment.debtorAccountId);
  return {
    ...payment.data,
    debtorAccount: chosen
      ? { iban: chosen.iban, currency: 'EUR' }
      : (payment.data.debtorAccount ?? { currency: 'EUR' }),
    transactionStatus: payment.status,
  };
}
