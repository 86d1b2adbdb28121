import { z } from 'zod';
import { validIban } from './accounts.ts';

/**
 * The body of a single SEPA (instant) credit transfer, `paymentInitiation_json` of the official
 * document, as this bank takes it: EUR only, at most 2 decimals, creditor by a valid IBAN. One
 * deliberate difference: `debtorAccount` may be left out (the customer chooses the account
 * during SCA), as many ASPSPs allow. Unknown fields are refused (FORMAT_ERROR) rather than
 * silently dropped. Strings must be storable (no NUL, no lone surrogate).
 */
const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((value) => !value.includes('\0') && value.isWellFormed(), 'holds a NUL or a lone surrogate');
const iban = z.string().refine(validIban, 'not a valid IBAN');

const AccountReference = z.strictObject({ iban, currency: z.literal('EUR').optional() });
const Address = z.strictObject({
  streetName: text(70).optional(),
  buildingNumber: text(16).optional(),
  townName: text(35).optional(),
  postCode: text(16).optional(),
  country: z.string().regex(/^[A-Z]{2}$/),
});

export const PaymentBody = z.strictObject({
  endToEndIdentification: text(35).optional(),
  debtorAccount: AccountReference.optional(),
  instructedAmount: z.strictObject({
    currency: z.literal('EUR', { error: 'SEPA credit transfers are in EUR only' }),
    amount: z
      .string()
      .regex(/^[0-9]{1,14}(\.[0-9]{1,2})?$/, 'an amount like 10.50, at most 2 decimals')
      .refine((value) => Number(value) > 0, 'must be more than zero'),
  }),
  creditorAccount: AccountReference,
  creditorAgent: z
    .string()
    .regex(/^[A-Z]{6}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/)
    .optional(),
  creditorName: text(70),
  creditorAddress: Address.optional(),
  ultimateCreditor: text(70).optional(),
  ultimateDebtor: text(70).optional(),
  purposeCode: z
    .string()
    .regex(/^[A-Z]{4}$/)
    .optional(),
  remittanceInformationUnstructured: text(140).optional(),
});
export type PaymentBody = z.infer<typeof PaymentBody>;
