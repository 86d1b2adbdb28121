import { describe, expect, it } from 'vitest';
import {
  CreatePaymentInput,
  detailsFromZodError,
  InexactNumber,
  ListBanksQuery,
  ListPaymentsQuery,
  MAX_INPUT_DEPTH,
  parseJsonObjectBody,
  scanJson,
  unusableInputDetails,
} from '../src/index.ts';

const AMOUNT_RULE = 'must be a positive decimal with at most 4 decimal places';
const toAccount = '{"accountName":"Acme","iban":"GB33BUKB20201555555555"}';

/** A create body as JSON text, so the amount is a real JSON number literal. */
const createText = (valueLiteral: string, currency = 'GBP') =>
  `{"toAccount":${toAccount},"amount":{"value":${valueLiteral},"currency":"${currency}"}}`;

const amountOf = (text: string) => {
  const result = CreatePaymentInput.safeParse(parseJsonObjectBody(text));
  return result.success ? result.data.amount.value : detailsFromZodError(result.error);
};

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('money from a JSON number literal', () => {
  it.each([
    ['99999999999999.99999'],
    ['10.00000000000000001'],
    ['1.23456'],
    ['0.00000000000000000001'],
    ['-0.5'],
    ['0'],
  ])('%s is refused as the same text in a string would be', (literal) => {
    expect(amountOf(createText(literal, 'KWD'))).toEqual([{ field: 'amount.value', message: AMOUNT_RULE }]);
    expect(amountOf(createText(`"${literal}"`, 'KWD'))).toEqual([
      { field: 'amount.value', message: AMOUNT_RULE },
    ]);
  });

  it('keeps every digit a float would have rounded, and reads exact literals as before', () => {
    // 99999999999999.99 is not a double: a float would have made it 99999999999999.98.
    expect(amountOf(createText('99999999999999.99'))).toBe('99999999999999.99');
    expect(amountOf(createText('123456789012345.123', 'KWD'))).toBe('123456789012345.123');
    expect(amountOf(createText('10.5'))).toBe('10.5');
    expect(amountOf(createText('1e2'))).toBe('100');
    expect(amountOf(createText('1E-2'))).toBe('0.01');
    expect(amountOf(createText('12345678901234567890'))).toEqual([
      { field: 'amount.value', message: 'must be at most 15 digits before the decimal point' },
    ]);
  });

  it('an inexact number is never a number (or a string) anywhere else', () => {
    const body = parseJsonObjectBody('{"a":1.00000000000000001,"b":[3.5,12345678901234567890]}');
    expect(body?.a).toBeInstanceOf(InexactNumber);
    expect((body?.b as unknown[] | undefined)?.[0]).toBe(3.5);
    expect(JSON.stringify(body)).toBe('{"a":"1.00000000000000001","b":[3.5,"12345678901234567890"]}');
    // Found however many strings come first, digits and escaped quotes in them.
    const late = parseJsonObjectBody(
      JSON.stringify({ a: '"12\\' }).replace('}', ',"b":{"c":[true,null,-1.00000000000000001]}}'),
    );
    expect(late?.a).toBe('"12\\');
    expect((late?.b as { c: unknown[] } | undefined)?.c[2]).toBeInstanceOf(InexactNumber);
    const text = `{"toAccount":{"accountName":1.00000000000000001,"iban":"GB33BUKB20201555555555"},"amount":{"value":"1","currency":"GBP"}}`;
    const result = CreatePaymentInput.safeParse(parseJsonObjectBody(text));
    expect(result.success ? [] : detailsFromZodError(result.error)).toEqual([
      { field: 'toAccount.accountName', message: 'must be a string' },
    ]);
  });
});

describe('up to 4 decimal places in every currency (the specification; no ISO 4217 minor-units rule)', () => {
  it.each([
    ['0.0001', 'GBP'],
    ['10.005', 'GBP'],
    ['10.500', 'GBP'],
    ['1.5', 'JPY'],
    ['1.1234', 'KWD'],
    ['1500', 'JPY'],
  ])('%s %s is accepted, digits as written', (value, currency) => {
    expect(amountOf(createText(`"${value}"`, currency))).toBe(value);
  });

  it('a number literal is read the same way, never through a float', () => {
    expect(amountOf(createText('0.0001'))).toBe('0.0001');
    expect(amountOf(createText('12.345'))).toBe('12.345');
    expect(amountOf(createText('1.5', 'JPY'))).toBe('1.5');
    expect(amountOf(createText('0.00001'))).toEqual([{ field: 'amount.value', message: AMOUNT_RULE }]);
  });
});

describe('depth, before anything walks a body', () => {
  it('counts nesting on the text, ignoring brackets inside strings', () => {
    expect(scanJson(nested(3), 3).tooDeep).toBe(false);
    expect(scanJson(nested(4), 3).tooDeep).toBe(true);
    expect(scanJson(`["${'['.repeat(100)}\\"${'{'.repeat(100)}"]`, 1).tooDeep).toBe(false);
  });

  it('refuses a body nested deeper than the limit as VALIDATION_FAILED, without a stack overflow', () => {
    const tooDeep = `{"token":"x","scenario":${nested(3000)}}`;
    expect(() => parseJsonObjectBody(tooDeep)).toThrow(
      expect.objectContaining({
        kind: 'VALIDATION_FAILED',
        details: [
          {
            field: 'body',
            message: `must not nest objects or arrays more than ${MAX_INPUT_DEPTH} levels deep`,
          },
        ],
      }),
    );
    expect(parseJsonObjectBody(`{"a":${nested(MAX_INPUT_DEPTH - 1)}}`)).toBeDefined();
  });

  it('the input check walks with a stack of its own: 100,000 levels, no recursion', () => {
    const deep = JSON.parse(`{"ok":"fine","reference":${nested(100_000)}}`);
    expect(unusableInputDetails(deep)).toEqual([
      {
        field: 'reference',
        message: `must not nest objects or arrays more than ${MAX_INPUT_DEPTH} levels deep`,
      },
    ]);
  });
});

describe('unknown list parameters', () => {
  it('are refused, one detail each, rather than ignored', () => {
    const payments = ListPaymentsQuery.safeParse({ 'status[]': 'COMPLETED', limit: '5' });
    expect(payments.success ? [] : detailsFromZodError(payments.error)).toEqual([
      { field: 'status[]', message: 'is not a known parameter' },
    ]);
    const banks = ListBanksQuery.safeParse({ country: 'GB', q: 'albion' });
    expect(banks.success ? [] : detailsFromZodError(banks.error)).toEqual([
      { field: 'q', message: 'is not a known parameter' },
    ]);
  });
});
