import { z } from 'zod';

/**
 * The request bodies the bank accepts: the standard's OBWriteDomesticConsent4 and
 * OBWriteDomestic2, written here (the official documents are the tests' yardstick, not a
 * runtime dependency). The parts the bank acts on are checked closely; optional parts it only
 * stores and echoes (addresses, regulatory reporting, supplementary data) must be objects/arrays.
 */
const text = (max: number) => z.string().min(1).max(max);
const anyObject = z.record(z.string(), z.unknown());

export const Amount = z
  .string()
  .regex(/^\d{1,13}$|^\d{1,13}\.\d{1,5}$/, 'an amount like 10.50')
  .refine((value) => Number(value) > 0, 'must be more than zero');

const Account = z.strictObject({
  SchemeName: text(40),
  Identification: text(256),
  Name: text(350).optional(),
  SecondaryIdentification: text(34).optional(),
  Proxy: anyObject.optional(),
});

export const Initiation = z.strictObject({
  InstructionIdentification: text(35),
  EndToEndIdentification: text(35),
  LocalInstrument: text(50).optional(),
  InstructedAmount: z.strictObject({ Amount, Currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code') }),
  DebtorAccount: Account.optional(),
  CreditorAgent: anyObject.optional(),
  CreditorAccount: Account.extend({ Name: text(350) }),
  CreditorPostalAddress: anyObject.optional(),
  UltimateCreditor: anyObject.optional(),
  UltimateDebtor: anyObject.optional(),
  RegulatoryReporting: z.array(anyObject).optional(),
  RemittanceInformation: z
    .strictObject({
      Structured: z.array(anyObject).optional(),
      Unstructured: z.array(text(140)).optional(),
    })
    .optional(),
  SupplementaryData: anyObject.optional(),
});

export const Risk = z.strictObject({
  PaymentContextCode: z
    .enum([
      'BillingGoodsAndServicesInAdvance',
      'BillingGoodsAndServicesInArrears',
      'EcommerceMerchantInitiatedPayment',
      'FaceToFacePointOfSale',
      'TransferToSelf',
      'TransferToThirdParty',
    ])
    .optional(),
  MerchantCategoryCode: z.string().min(3).max(4).optional(),
  MerchantCustomerIdentification: text(70).optional(),
  ContractPresentIndicator: z.boolean().optional(),
  BeneficiaryPrepopulatedIndicator: z.boolean().optional(),
  PaymentPurposeCode: text(4).optional(),
  CategoryPurposeCode: text(4).optional(),
  BeneficiaryAccountType: text(40).optional(),
  DeliveryAddress: anyObject.optional(),
});

export const ConsentRequest = z.strictObject({
  Data: z.strictObject({
    ReadRefundAccount: z.enum(['No', 'Yes']).optional(),
    Initiation,
    Authorisation: z
      .strictObject({
        AuthorisationType: z.enum(['Any', 'Single']),
        CompletionDateTime: z.iso.datetime({ offset: true }).optional(),
      })
      .optional(),
    SCASupportData: anyObject.optional(),
  }),
  Risk,
});
export type ConsentRequest = z.infer<typeof ConsentRequest>;

export const PaymentRequest = z.strictObject({
  Data: z.strictObject({ ConsentId: text(128), Initiation }),
  Risk,
});
export type PaymentRequest = z.infer<typeof PaymentRequest>;
