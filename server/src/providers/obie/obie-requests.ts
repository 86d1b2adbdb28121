import type { PaymentRecord } from '@pis/shared';

/**
 * The OB domestic payment bodies made from our payment. Both are pure functions of the stored
 * record, so a repeat under the same idempotency key sends the same body (the bank compares them
 * as canonical JSON, U012 otherwise) and the payment always matches its consent (U008).
 */
export function consentBody(record: PaymentRecord) {
  const account = record.toAccount;
  const creditor = account.iban
    ? { SchemeName: 'UK.OBIE.IBAN', Identification: account.iban, Name: account.accountName.slice(0, 350) }
    : {
        SchemeName: 'UK.OBIE.SortCodeAccountNumber',
        Identification: `${(account.sortCode ?? '').replace(/\D/g, '')}${account.accountNumber ?? ''}`,
        Name: account.accountName.slice(0, 350),
      };
  return {
    Data: {
      Initiation: {
        InstructionIdentification: record.id.slice(0, 35),
        EndToEndIdentification: record.reference.endToEndId.slice(0, 35),
        LocalInstrument: 'UK.OBIE.FPS',
        InstructedAmount: { Amount: record.amount.value, Currency: record.amount.currency },
        CreditorAccount: creditor,
        RemittanceInformation: { Unstructured: [record.reference.reference.slice(0, 140)] },
      },
    },
    Risk: { PaymentContextCode: 'EcommerceMerchantInitiatedPayment' },
  };
}

export function paymentBody(record: PaymentRecord, consentId: string) {
  const consent = consentBody(record);
  return { Data: { ConsentId: consentId, Initiation: consent.Data.Initiation }, Risk: consent.Risk };
}

/** Idempotency keys derived from our payment id: a lost answer is found again, never made twice. */
export const consentIdempotencyKey = (paymentId: string) => `${paymentId}.consent`;
export const paymentIdempotencyKey = (paymentId: string) => `${paymentId}.payment`;
