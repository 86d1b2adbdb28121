import type { Account } from '../bank/accounts.ts';
import type { Consent } from '../bank/consents.ts';
import type { Payment } from '../bank/payments.ts';

/** The standard's response shapes, built in one place from the bank's records. */

const time = (date: Date | string) => new Date(date).toISOString();

function debtor(account: Account | undefined) {
  return account
    ? {
        Debtor: {
          SchemeName: account.schemeName,
          Identification: account.identification,
          Name: account.name,
        },
      }
    : {};
}

export function consentView(consent: Consent, account: Account | undefined, apiBase: string) {
  const showDebtor = consent.status === 'AUTH' || consent.status === 'COND';
  return {
    Data: {
      ConsentId: consent.id,
      CreationDateTime: time(consent.createdAt),
      Status: consent.status,
      StatusUpdateDateTime: time(consent.statusUpdatedAt),
      ...consent.data,
      ...(showDebtor ? debtor(account) : {}),
    },
    Risk: consent.risk,
    Links: { Self: `${apiBase}/domestic-payment-consents/${consent.id}` },
    Meta: {},
  };
}

export function fundsView(consentId: string, available: boolean, apiBase: string) {
  return {
    Data: { FundsAvailableResult: { FundsAvailableDateTime: time(new Date()), FundsAvailable: available } },
    Links: { Self: `${apiBase}/domestic-payment-consents/${consentId}/funds-confirmation` },
    Meta: {},
  };
}

const REASONS: Record<string, string> = { AM04: 'Insufficient funds in the chosen account' };

export function paymentView(payment: Payment, account: Account | undefined, apiBase: string) {
  return {
    Data: {
      DomesticPaymentId: payment.id,
      ConsentId: payment.consentId,
      CreationDateTime: time(payment.createdAt),
      Status: payment.status,
      StatusUpdateDateTime: time(payment.statusUpdatedAt),
      ...(payment.statusReason
        ? {
            StatusReason: [
              {
                StatusReasonCode: payment.statusReason,
                StatusReasonDescription: REASONS[payment.statusReason] ?? payment.statusReason,
              },
            ],
          }
        : {}),
      Initiation: payment.data.Initiation,
      ...debtor(account),
    },
    Links: { Self: `${apiBase}/domestic-payments/${payment.id}` },
    Meta: {},
  };
}

/** The status history; `RCVD` is not a payment-details status in the standard, so it is left out. */
export function paymentDetailsView(payment: Payment, apiBase: string) {
  return {
    Data: {
      PaymentStatus: payment.history
        .filter((step) => step.status !== 'RCVD')
        .map((step) => ({
          PaymentTransactionId: payment.id,
          Status: step.status,
          StatusUpdateDateTime: time(step.at),
          StatusDetail: { Status: step.status, ...(step.reason ? { StatusReason: step.reason } : {}) },
        })),
    },
    Links: { Self: `${apiBase}/domestic-payments/${payment.id}/payment-details` },
    Meta: {},
  };
}
