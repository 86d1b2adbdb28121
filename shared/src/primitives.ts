import currencyCodes from 'currency-codes';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { MESSAGES } from './errors.ts';
import { InexactNumber } from './json-input.ts';

/** Largest amount accepted: 15 integer digits fit Postgres numeric and every real transfer. */
const DECIMAL = /^\d{1,15}(\.\d{1,4})?$/;
const TOO_MANY_DIGITS = /^\d{16,}(\.\d{1,4})?$/;
/**
 * The same rule for clients, as a JSON Schema pattern without look-arounds (some generators'
 * regex engines have none): a non-zero digit before the point, or a non-zero fraction. The
 * 15-digit limit is left to maxLength and the description.
 */
export const AMOUNT_PATTERN =
  '^(?:[0-9]*[1-9][0-9]*(?:\\.[0-9]{1,4})?|[0-9]+\\.(?:[1-9][0-9]{0,3}|0[1-9][0-9]{0,2}|00[1-9][0-9]?|000[1-9]))$';

/** Canonical decimal text: no leading zeros, decimals as given ("007.50" -> "7.50"). */
const canonicalDecimal = (text: string): string => {
  const [whole = '0', fraction] = text.split('.');
  const trimmed = whole.replace(/^0+(?=\d)/, '');
  return fraction === undefined ? trimmed : `${trimmed}.${fraction}`;
};

/**
 * A positive amount with at most 4 decimals. Accepts a string or a JSON number on input and
 * always yields a string: money never travels as a float past this point. A number is read
 * through its source text when the body reader kept it (InexactNumber: a float would have
 * rounded it), else through its shortest round-trip text, so 10.5 stays "10.5"; either way it
 * is held to the same rule as a string, and nothing is rounded.
 */
// A union rather than z.preprocess: zod marks a preprocess step as accepting undefined, so the
// generated JSON Schema listed `value` as optional (a contract run from the document found it).
export const AmountValueInput = z
  .union(
    [
      z.string(),
      z.number(),
      z.instanceof(InexactNumber, { error: MESSAGES.amount }).meta({ override: { type: 'number' } }),
    ],
    {
      error: MESSAGES.amount,
    },
  )
  .transform((value, ctx) => {
    const text =
      value instanceof InexactNumber
        ? value.text
        : typeof value === 'number'
          ? Number.isFinite(value)
            ? String(value)
            : ''
          : value;
    if (!DECIMAL.test(text) || !/[1-9]/.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message: TOO_MANY_DIGITS.test(text) ? MESSAGES.amountTooLarge : MESSAGES.amount,
      });
      return z.NEVER;
    }
    return canonicalDecimal(text);
  })
  .meta({
    description:
      'Positive decimal as a string (preferred) or a number, with at most 4 decimal places ' +
      '(and at most 15 digits before the point), in every currency',
    example: '10.50',
    // JSON Schema of the input side: the transform above is the rule, this says it for clients.
    override: {
      anyOf: [
        { type: 'string', pattern: AMOUNT_PATTERN, maxLength: 20 },
        { type: 'number', exclusiveMinimum: 0 },
      ],
    },
  });

/**
 * Codes a payment can be made in: ISO 4217 minus what is not money one can transfer
 * (precious metals, SDR, bond units, the testing and "no currency" codes, and funds codes).
 */
const NOT_TRANSFERABLE = new Set(
  'XAU XAG XPT XPD XDR XBA XBB XBC XBD XSU XUA XTS XXX BOV CHE CHW CLF COU MXV USN UYI UYW'.split(' '),
);
const CURRENCIES: ReadonlySet<string> = new Set(
  currencyCodes.codes().filter((code) => !NOT_TRANSFERABLE.has(code)),
);

export const Currency = z
  .string()
  .refine((code) => CURRENCIES.has(code), { error: 'must be an ISO 4217 currency code, e.g. GBP or EUR' })
  .meta({
    id: 'Currency',
    description: 'ISO 4217 three-letter currency code (precious metals, funds and test codes excepted)',
    example: 'GBP',
    override: { enum: [...CURRENCIES].sort() },
  });

/**
 * An amount as a request gives it. Any positive decimal with at most 4 places is valid for every
 * currency, as the specification says ("0.0001" GBP included): whether a bank can carry it is
 * that provider's question, answered by the provider at creation, never by the API for all.
 */
export const AmountInput = z.object({ value: AmountValueInput, currency: Currency }).meta({
  id: 'AmountInput',
  description:
    'An amount as a request gives it: a positive decimal with at most 4 decimal places, in any currency. ' +
    "Send `value` as a string: a number's decimals cannot be checked by JSON Schema.",
});
export type AmountInput = z.input<typeof AmountInput>;

export const Amount = z
  .object({
    value: z
      .string()
      .meta({ description: 'Positive decimal string, at most 4 decimal places', example: '10.50' }),
    currency: z.string().meta({ description: 'ISO 4217 currency code', example: 'GBP' }),
  })
  .meta({ id: 'Amount', description: 'An amount as the service answers it: the value always a string' });
export type Amount = z.infer<typeof Amount>;

const SORT_CODE = /^\d{2}-?\d{2}-?\d{2}$/;

/** Account details as a merchant gives them; IBANs and sort codes are normalised on the way in. */
export const AccountInput = z
  .object({
    accountName: z.string().trim().min(1, { error: 'is required' }).max(140),
    accountNumber: z.string().trim().min(1).max(34).optional(),
    sortCode: z
      .string()
      .max(8, { abort: true })
      .regex(SORT_CODE, { error: 'must be a UK sort code: 6 digits, with or without dashes (12-34-56)' })
      .transform((code) => code.replaceAll('-', ''))
      .optional(),
    iban: z
      .string()
      .max(34, { abort: true })
      .transform((iban) => electronicFormatIBAN(iban) ?? iban)
      .refine((iban) => isValidIBAN(iban), { error: 'must be a valid IBAN (country, length and checksum)' })
      .optional(),
    bic: z.string().trim().min(1).max(11).optional(),
    bankName: z.string().trim().min(1).max(140).optional(),
  })
  .meta({ id: 'AccountInput', description: 'Account details; IBANs and sort codes are normalised' });
export type AccountInput = z.input<typeof AccountInput>;

/** Who gets paid: an IBAN, or a UK sort code with an account number. */
// Built from the shape rather than from AccountInput itself, so the document shows this rule
// (anyOf) on a schema of its own instead of a bare reference to AccountInput.
export const ToAccountInput = z
  .object(AccountInput.shape)
  .superRefine((account, ctx) => {
    if (account.iban) return;
    if (account.sortCode && !account.accountNumber) {
      ctx.addIssue({
        code: 'custom',
        path: ['accountNumber'],
        message: 'is required together with sortCode',
      });
    } else if (account.accountNumber && !account.sortCode) {
      ctx.addIssue({
        code: 'custom',
        path: ['sortCode'],
        message: 'is required together with accountNumber',
      });
    } else if (!account.sortCode) {
      ctx.addIssue({
        code: 'custom',
        message: 'needs an iban, or a sortCode together with an accountNumber',
      });
    }
  })
  .meta({
    id: 'ToAccountInput',
    description: 'Who gets paid: an iban, or a sortCode together with an accountNumber',
    // Two complete alternatives rather than properties plus an anyOf of `required` lists:
    // generators then type it as `{ accountName, iban, ... } | { accountName, sortCode, accountNumber, ... }`.
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      const { properties, required = [] } = jsonSchema as { properties: unknown; required?: string[] };
      const branch = (needs: string[]) => ({ type: 'object', properties, required: [...required, ...needs] });
      jsonSchema.anyOf = [branch(['iban']), branch(['sortCode', 'accountNumber'])];
      delete jsonSchema.properties;
      delete jsonSchema.required;
    },
  });

export const Account = z
  .object({
    accountName: z.string(),
    accountNumber: z.string().optional(),
    sortCode: z.string().optional(),
    iban: z.string().optional(),
    bic: z.string().optional(),
    bankName: z.string().optional(),
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof Account>;

export const ReferenceInput = z
  .union(
    [
      z.string().trim().min(1).max(140),
      z.object({
        reference: z.string().trim().min(1).max(140),
        endToEndId: z.string().trim().min(1).max(35).optional(),
      }),
    ],
    { error: 'must be a string (at most 140 characters) or an object with reference and endToEndId' },
  )
  .meta({
    id: 'ReferenceInput',
    description: 'Shown on the bank statement: a string, or an object with reference and endToEndId',
  });
export type ReferenceInput = z.input<typeof ReferenceInput>;

export const Reference = z
  .object({ reference: z.string(), endToEndId: z.string() })
  .meta({ id: 'Reference', description: 'The reference and the ISO 20022 EndToEndId' });
export type Reference = z.infer<typeof Reference>;

/** The Mock bank is the default, and the only provider a new organization may use. */
export const MOCK_PROVIDER = 'mock';

export const ProviderCode = z
  .string()
  .regex(/^[a-z0-9_-]{1,50}$/, { error: 'must match ^[a-z0-9_-]{1,50}$' })
  .meta({ id: 'ProviderCode', example: MOCK_PROVIDER });

export const RedirectUrl = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http or https URL' })
  .max(2048)
  // `https://bank.example@evil.example/` shows the customer a trusted name and goes elsewhere.
  .refine(
    (value) => {
      const url = URL.parse(value);
      return !url || (url.username === '' && url.password === '');
    },
    { error: 'must not contain user information (the user:password@ part)' },
  )
  .meta({ description: 'Where the customer returns; paymentId and status are added to its query' });

/** Integer query parameter: query strings arrive as text, tRPC callers send numbers. */
export const queryInteger = (bounds: { min: number; max?: number }) => {
  const message =
    bounds.max === undefined
      ? `must be an integer of at least ${bounds.min}`
      : `must be an integer from ${bounds.min} to ${bounds.max}`;
  return z.preprocess(
    (value) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value),
    bounds.max === undefined
      ? z.int({ error: message }).min(bounds.min, { error: message })
      : z.int({ error: message }).min(bounds.min, { error: message }).max(bounds.max, { error: message }),
  );
};
