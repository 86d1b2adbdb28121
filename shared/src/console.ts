import { z } from 'zod';
import { PAYMENT_MODES } from './lifecycle.ts';
import { ToAccountInput } from './primitives.ts';

/**
 * The merchant console's own contract beside shared/src/dashboard.ts (issue 34 items 3, 9, 10,
 * 12): what New payment may offer, the saved payee accounts, and the organization's budgets.
 */

/** A bank New payment can send the customer straight to. */
export const NewPaymentBank = z.object({ id: z.string(), name: z.string() });

/** A provider the session can create a payment with now, in its mode (test or live). */
export const NewPaymentProvider = z.object({
  code: z.string(),
  name: z.string(),
  /**
   * The banks "Straight to the bank" can go to (its `bankId`), for a provider that needs one
   * (every provider but the Mock bank, whose own page plays the bank). Empty for the Mock bank.
   */
  banks: z.array(NewPaymentBank),
  /** Whether "Straight to the bank" needs one of `banks` (a real provider reaches many). */
  needsBank: z.boolean(),
});
export type NewPaymentProvider = z.infer<typeof NewPaymentProvider>;

export const NewPaymentOptions = z.object({
  mode: z.enum(PAYMENT_MODES),
  /** In the order to offer them: empty when nothing can be paid in this mode yet. */
  providers: z.array(NewPaymentProvider),
  /** When `providers` is empty: why, and what to ask the operator for. */
  unavailable: z.string().nullable(),
  /** Whether the customer can be sent to our bank picker (hosted pages are on). */
  hostedPages: z.boolean(),
});
export type NewPaymentOptions = z.infer<typeof NewPaymentOptions>;

/** What a merchant calls a saved payee account ("Main account", "Shop EUR"). */
export const PayeeLabel = z
  .string()
  .trim()
  .min(1, { error: 'is required' })
  .max(60, { error: 'must be at most 60 characters' })
  .refine((value) => !/[\p{Cc}]/u.test(value), { error: 'must not contain control characters' });

/**
 * A saved payee account: the merchant's own receiving account, checked by the create contract's
 * own `toAccount` schema, so the dashboard stores only what POST /payments would take.
 */
export const SavePayeeInput = z.object({ label: PayeeLabel, account: ToAccountInput });
export type SavePayeeInput = z.input<typeof SavePayeeInput>;

export const SavedPayee = z.object({
  id: z.string(),
  label: z.string(),
  account: z.object({
    accountName: z.string(),
    sortCode: z.string().optional(),
    accountNumber: z.string().optional(),
    iban: z.string().optional(),
  }),
  createdAt: z.iso.datetime(),
});
export type SavedPayee = z.infer<typeof SavedPayee>;

export const SavedPayeeList = z.object({ payees: z.array(SavedPayee) });
export const SavedPayeeIdInput = z.object({ payeeId: z.string().min(1).max(100) });

/** One of the organization's budgets and how much of its current window is used. */
export const BudgetUsage = z.object({
  budget: z.enum(['api-read', 'api-write', 'dashboard']),
  /** Requests allowed per window. */
  limit: z.int(),
  /** Requests counted in the current window. */
  used: z.int(),
  /** Seconds until the current window ends (the whole window when nothing is counted yet). */
  resetSeconds: z.int(),
});

export const OrganizationBudgets = z.object({
  /** Off: the operator switched rate limits off (`RATE_LIMITS=off`); nothing is counted. */
  enabled: z.boolean(),
  windowSeconds: z.int(),
  /** A self-serve sign-up not yet raised by the operator: a tenth of each default API budget. */
  reduced: z.boolean(),
  budgets: z.array(BudgetUsage),
  /** Waiting reads (`Prefer: wait`) the organization may hold at once. */
  waitsAtOnce: z.int(),
});
export type OrganizationBudgets = z.infer<typeof OrganizationBudgets>;
