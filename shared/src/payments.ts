import { z } from 'zod';
import { MockBankScenario } from './mock-bank.ts';
import {
  Account,
  AccountInput,
  Amount,
  AmountInput,
  Currency,
  MOCK_PROVIDER,
  ProviderCode,
  queryInteger,
  RedirectUrl,
  Reference,
  ReferenceInput,
  ToAccountInput,
} from './primitives.ts';
import { IsoStatus, PaymentStatus } from './state-machine.ts';

export const FLOW_TYPES = ['API_ONLY', 'HOSTED_PAGES', 'EMBEDDED_HOSTED_PAGES'] as const;
export const FlowType = z.enum(FLOW_TYPES).meta({
  id: 'FlowType',
  description:
    'API_ONLY: straight to the bank; HOSTED_PAGES: the customer picks a bank on our page; EMBEDDED_HOSTED_PAGES: the merchant picked it (bankId)',
});
export type FlowType = z.infer<typeof FlowType>;

export const BankId = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .meta({ id: 'BankId', description: 'A bank id from GET /banks' });

export const CreatePaymentInput = z
  .object({
    toAccount: ToAccountInput.meta({ description: 'Who gets paid: iban, or sortCode with accountNumber' }),
    fromAccount: AccountInput.optional(),
    amount: AmountInput,
    reference: ReferenceInput.optional().meta({ description: 'Shown on the bank statement' }),
    flowType: FlowType.default('API_ONLY'),
    redirectUrl: RedirectUrl.optional(),
    provider: ProviderCode.default(MOCK_PROVIDER).meta({
      description:
        'Default mock (practice, test keys only); others need the operator’s approval: obie pays through UK Open Banking banks, nextgenpsd2 in euro to an IBAN through Berlin Group NextGenPSD2 banks (GET /payments/providers)',
    }),
    bankId: BankId.optional().meta({
      description:
        'Required for EMBEDDED_HOSTED_PAGES, and for a real provider (obie, nextgenpsd2) with API_ONLY; ids from GET /banks',
    }),
    mockBank: MockBankScenario.optional().meta({
      description: 'Mock bank scenario; only with provider mock',
    }),
  })
  .superRefine((input, ctx) => {
    if (input.flowType === 'EMBEDDED_HOSTED_PAGES' && !input.bankId) {
      ctx.addIssue({ code: 'custom', path: ['bankId'], message: 'is required for EMBEDDED_HOSTED_PAGES' });
    }
  })
  .meta({
    id: 'CreatePaymentRequest',
    description: 'Unknown fields are ignored.',
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      jsonSchema.if = {
        properties: { flowType: { const: 'EMBEDDED_HOSTED_PAGES' } },
        required: ['flowType'],
      };
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then, not a promise.
      jsonSchema.then = { properties: { bankId: { type: 'string', minLength: 1 } }, required: ['bankId'] };
    },
  });
export type CreatePaymentInput = z.input<typeof CreatePaymentInput>;
export type CreatePaymentCommand = z.output<typeof CreatePaymentInput>;

export const CreatedPayment = z
  .object({
    paymentId: z.string(),
    status: PaymentStatus,
    isoStatus: IsoStatus,
    redirectUrl: z
      .string()
      .nullable()
      .meta({
        description:
          'The one URL to send the customer to (signed, short-lived). For provider obie a link at this ' +
          'service (30 minutes) that asks the bank for its sign-in page each time it is opened. Null when the bank gave none',
      }),
    provider: z.string(),
    bankId: z.string().optional(),
    amount: Amount,
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'CreatedPayment', description: 'A new payment, with the one URL to send the customer to' });
export type CreatedPayment = z.infer<typeof CreatedPayment>;

export const HistoryEntry = z
  .object({
    status: PaymentStatus,
    isoStatus: IsoStatus,
    timestamp: z.iso.datetime(),
    provider: z.string().nullable(),
    details: z.string().nullable(),
    simulated: z
      .literal(true)
      .optional()
      .meta({
        description:
          'Present (true) when the entry was made by advancing the payment’s test clock ' +
          '(`POST /payments/{paymentId}/mock-bank/advance`), not by time really passing: its `timestamp` ' +
          'is on the payment’s own, advanced clock',
      }),
    actor: z
      .object({
        type: z.enum(['member', 'customer', 'bank', 'expiry', 'api_key']),
        name: z.string().optional(),
      })
      .optional()
      .meta({
        id: 'HistoryActor',
        description:
          'Who made this entry: `member` (a dashboard user; `name` is their email), `customer` (at the ' +
          'bank or the hosted page), `bank` (its later steps and reports), `expiry` (24 hours without a ' +
          'decision) or `api_key` (`name` is the key’s non-secret prefix). Absent when not known ' +
          '(entries made before actors were kept).',
        example: { type: 'api_key', name: 'pis_Xk3vT9qa' },
      }),
  })
  .meta({ id: 'HistoryEntry', description: 'One status the payment had, and when' });
export type HistoryEntry = z.infer<typeof HistoryEntry>;

export const PaymentError = z
  .object({
    code: z.string().meta({ description: 'The ISO reason of the rejection: AM04, AC04, CUST or NARR' }),
    message: z.string().nullable(),
  })
  .meta({ id: 'PaymentError', description: 'Why a payment failed' });
export type PaymentError = z.infer<typeof PaymentError>;

export const Payment = z
  .object({
    paymentId: z.string(),
    status: PaymentStatus,
    isoStatus: IsoStatus,
    provider: z.string(),
    bankId: z.string().optional(),
    amount: Amount,
    fromAccount: Account.optional(),
    toAccount: Account,
    reference: Reference,
    flowType: FlowType,
    redirectUrl: z
      .string()
      .optional()
      .meta({ description: 'The return URL the merchant supplied at creation' }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    expiresAt: z.iso.datetime().optional(),
    completedAt: z.iso.datetime().optional(),
    error: PaymentError.optional(),
    statusHistory: z
      .array(HistoryEntry)
      .optional()
      .meta({ description: 'Every status the payment has had, oldest first' }),
  })
  .meta({ id: 'Payment', description: 'A payment as read, listed, synced or cancelled' });
export type Payment = z.infer<typeof Payment>;

export const NewCustomerLink = z
  .object({
    redirectUrl: z.string().meta({
      description: 'A fresh signed link to send the customer to (the same page the payment started with)',
      example: 'https://pay.example.com/pay/eyJwIjoicGF5XzAxIiwidSI6Imhvc3RlZCIsImUiOjE3NjQwODAwMDB9.c2ln',
    }),
    expiresAt: z.iso.datetime().meta({
      description: 'When this link stops working; earlier links keep their own expiry',
      example: '2026-11-25T16:00:00.000Z',
    }),
  })
  .meta({ id: 'NewCustomerLink', description: 'A new customer link for an unfinished payment' });
export type NewCustomerLink = z.infer<typeof NewCustomerLink>;

export const PaymentIdInput = z.object({ paymentId: z.string().max(200) });

/** The longest `search` a list or export accepts (issue 23). */
export const SEARCH_MAX_LENGTH = 100;

const CreatedBound = (which: string) =>
  z.iso.datetime({ offset: true, error: 'must be an RFC 3339 date-time, e.g. 2026-11-01T00:00:00Z' }).meta({
    description: `Only payments created ${which} (RFC 3339, inclusive)`,
    example: which === 'at or after' ? '2026-11-01T00:00:00Z' : '2026-11-30T23:59:59Z',
  });

/** The filters a list and an export share. */
const paymentFilters = {
  status: PaymentStatus.optional(),
  provider: z.string().max(50).optional(),
  search: z.string().trim().min(1).max(SEARCH_MAX_LENGTH).optional().meta({
    description:
      'A payment id or end-to-end id (exactly), an amount (exactly: `18.40`, `18.4` and `£18.40` find 18.40), or part of a reference or payee name (ignoring case; `%` and `_` are taken literally)',
    example: 'INV-2026',
  }),
  createdFrom: CreatedBound('at or after').optional(),
  createdTo: CreatedBound('at or before').optional(),
  currency: Currency.optional(),
};

/** createdFrom after createdTo can match nothing: a mistake, said so rather than an empty list. */
const boundsInOrder = (
  query: { createdFrom?: string | undefined; createdTo?: string | undefined },
  ctx: z.RefinementCtx,
) => {
  if (query.createdFrom && query.createdTo && Date.parse(query.createdFrom) > Date.parse(query.createdTo)) {
    ctx.addIssue({ code: 'custom', path: ['createdFrom'], message: 'must not be after createdTo' });
  }
};

/** Strict: an unknown parameter (`status[]=X`) is a 400, never a silently unfiltered list. */
export const ListPaymentsQuery = z
  .strictObject({
    ...paymentFilters,
    limit: queryInteger({ min: 1, max: 100 }).default(20),
    offset: queryInteger({ min: 0 }).default(0),
  })
  .superRefine(boundsInOrder);
export type ListPaymentsQuery = z.input<typeof ListPaymentsQuery>;

/** GET /payments/export: the list's filters, every matching payment (no pages). */
export const ExportPaymentsQuery = z.strictObject(paymentFilters).superRefine(boundsInOrder);
export type ExportPaymentsQuery = z.input<typeof ExportPaymentsQuery>;
export type PaymentFilters = z.output<typeof ExportPaymentsQuery>;

export const PaymentList = z
  .object({
    payments: z.array(Payment),
    total: z.int(),
    limit: z.int(),
    offset: z.int(),
  })
  .meta({ id: 'PaymentList', description: 'One page of payments, newest first' });
export type PaymentList = z.infer<typeof PaymentList>;
