import { z } from 'zod';
import { Bank, BankList, ListBanksQuery } from './banks.ts';
import { ApprovalTiming, MockPreset, RejectReason } from './mock-bank.ts';
import { FlowType } from './payments.ts';
import { Amount } from './primitives.ts';
import { PaymentStatus } from './state-machine.ts';

/**
 * Contract of the internal procedures behind the customer pages. The link token in the URL
 * is the only credential; the pages never see an API key.
 */

export const LinkToken = z.object({ token: z.string().min(1).max(2000) });

/** Who is paid, with the account as the customer checks it at the bank (sort code and number, or IBAN). */
export const Payee = z.object({
  accountName: z.string(),
  bankName: z.string().optional(),
  sortCode: z.string().optional(),
  accountNumber: z.string().optional(),
  iban: z.string().optional(),
});

export const Outcome = z.object({ status: PaymentStatus, returnUrl: z.string().nullable() });
export type Outcome = z.infer<typeof Outcome>;

/**
 * A verified merchant's brand (dashboard Settings > Brand, `org:verify`); null until an operator
 * verified the organization, when the pages show the service's look and `merchantName` as text.
 */
export const PageBrand = z.object({
  displayName: z.string(),
  accentColor: z.string().nullable(),
  logoUrl: z.string().nullable(),
});
export type PageBrand = z.infer<typeof PageBrand>;

const PaymentSummary = {
  paymentId: z.string(),
  merchantName: z.string(),
  brand: PageBrand.nullable(),
  status: PaymentStatus,
  amount: Amount,
  payee: Payee,
  reference: z.string(),
  linkExpiresAt: z.iso.datetime(),
  /** Set once the payment is decided or finished: the page shows this instead of the actions. */
  outcome: Outcome.nullable(),
  /** A Mock bank (sandbox) payment: the page says "Test payment: no money moves". */
  testPayment: z.boolean(),
};

export const HostedSession = z.object({
  ...PaymentSummary,
  flowType: FlowType,
  bank: Bank.nullable(),
  countries: z.array(z.string()),
  defaultCountry: z.string(),
  /** Set when a bank was chosen and the payment now waits at the bank's page. */
  next: z.object({ mockBankUrl: z.string() }).nullable(),
});
export type HostedSession = z.infer<typeof HostedSession>;

export const HostedBanksInput = LinkToken.extend(ListBanksQuery.shape);
export const HostedBanks = BankList;

export const ChooseBankInput = LinkToken.extend({ bankId: z.string().min(1).max(100) });
export const ChooseBankResult = z.object({ redirectUrl: z.string() });
export type ChooseBankResult = z.infer<typeof ChooseBankResult>;

export const MockBankSession = z.object({
  ...PaymentSummary,
  bank: Bank.nullable(),
  scenario: z.object({
    preset: MockPreset,
    completeAfterSeconds: z.int().nullable(),
    rejectReason: RejectReason,
  }),
});
export type MockBankSession = z.infer<typeof MockBankSession>;

export const ApproveInput = LinkToken.extend({ scenario: ApprovalTiming.default({}) });
export const RejectInput = LinkToken.extend({ reason: RejectReason });

export const DecisionResult = z.object({
  paymentId: z.string(),
  status: PaymentStatus,
  returnUrl: z.string().nullable(),
});
export type DecisionResult = z.infer<typeof DecisionResult>;
