import { describe, expect, it } from 'vitest';
import {
  CreatePaymentInput,
  detailsFromZodError,
  ListBanksQuery,
  ListPaymentsQuery,
  unusableInputDetails,
} from '../src/index.ts';

const base = {
  toAccount: { accountName: 'Acme Ltd', iban: 'GB33BUKB20201555555555' },
  amount: { value: '10.00', currency: 'GBP' },
};

const problems = (body: unknown) => {
  const result = CreatePaymentInput.safeParse(body);
  return result.success ? [] : detailsFromZodError(result.error);
};

describe('create payment validation', () => {
  it('accepts a minimal payment and fills defaults', () => {
    const parsed = CreatePaymentInput.parse(base);
    expect(parsed.flowType).toBe('API_ONLY');
    expect(parsed.provider).toBe('mock');
    expect(parsed.amount).toEqual({ value: '10.00', currency: 'GBP' });
  });

  it.each([
    ['10', '10'],
    [10, '10'],
    [10.5, '10.5'],
    ['0.001', '0.001'],
    ['007.50', '7.50'],
    [1234.567, '1234.567'],
  ])('amount %j becomes the string %j', (value, expected) => {
    expect(CreatePaymentInput.parse({ ...base, amount: { value, currency: 'KWD' } }).amount.value).toBe(
      expected,
    );
  });

  it.each([
    0,
    '0',
    '0.00',
    -1,
    '-1',
    '1.23456',
    1.23456,
    '1e3',
    'abc',
    '',
    ' 1',
    null,
    true,
    [],
    {},
    1e21,
    Number.NaN,
  ])('amount %j is refused with the spec message', (value) => {
    expect(problems({ ...base, amount: { value, currency: 'GBP' } })).toEqual([
      { field: 'amount.value', message: 'must be a positive decimal with at most 4 decimal places' },
    ]);
  });

  it('needs an ISO 4217 currency that exists', () => {
    expect(problems({ ...base, amount: { value: '1', currency: 'XYZ' } })[0]?.field).toBe('amount.currency');
    expect(problems({ ...base, amount: { value: '1', currency: 'gbp' } })[0]?.field).toBe('amount.currency');
    expect(problems({ ...base, amount: { value: '1', currency: 'JPY' } })).toEqual([]);
  });

  it('needs an iban (checksum verified) or a sort code with an account number', () => {
    expect(
      problems({ ...base, toAccount: { accountName: 'A', iban: 'GB34BUKB20201555555555' } })[0]?.field,
    ).toBe('toAccount.iban');
    expect(
      problems({ ...base, toAccount: { accountName: 'A', iban: 'gb33 bukb 2020 1555 5555 55' } }),
    ).toEqual([]);
    expect(problems({ ...base, toAccount: { accountName: 'A' } })).toEqual([
      { field: 'toAccount', message: 'needs an iban, or a sortCode together with an accountNumber' },
    ]);
    expect(problems({ ...base, toAccount: { accountName: 'A', sortCode: '123456' } })[0]?.field).toBe(
      'toAccount.accountNumber',
    );
    expect(
      problems({ ...base, toAccount: { accountName: 'A', sortCode: '12-34-5', accountNumber: '1' } })[0]
        ?.field,
    ).toBe('toAccount.sortCode');
    expect(
      problems({ ...base, toAccount: { accountName: 'A', sortCode: '12-34-56', accountNumber: '12345678' } }),
    ).toEqual([]);
  });

  it('enforces every max length of Account and Reference', () => {
    const long = (n: number) => 'x'.repeat(n);
    const fields = problems({
      ...base,
      toAccount: {
        accountName: long(141),
        iban: 'GB33BUKB20201555555555',
        bic: long(12),
        bankName: long(141),
      },
      fromAccount: { accountName: 'Jo', accountNumber: long(35), sortCode: long(9), iban: long(35) },
      reference: { reference: long(141), endToEndId: long(36) },
    }).map((detail) => detail.field);
    expect(fields.sort()).toEqual(
      [
        'toAccount.accountName',
        'toAccount.bic',
        'toAccount.bankName',
        'fromAccount.accountNumber',
        'fromAccount.sortCode',
        'fromAccount.iban',
        'reference.reference',
        'reference.endToEndId',
      ].sort(),
    );
    expect(problems({ ...base, reference: long(141) }).map((detail) => detail.field)).toEqual(['reference']);
    expect(problems({ ...base, reference: long(140) })).toEqual([]);
  });

  it('checks flow, redirect URL, provider, bankId and the Mock bank scenario', () => {
    expect(problems({ ...base, flowType: 'EMBEDDED_HOSTED_PAGES' })).toEqual([
      { field: 'bankId', message: 'is required for EMBEDDED_HOSTED_PAGES' },
    ]);
    expect(problems({ ...base, redirectUrl: 'ftp://x.example/' })[0]?.field).toBe('redirectUrl');
    expect(problems({ ...base, redirectUrl: 'javascript:alert(1)' })[0]?.field).toBe('redirectUrl');
    expect(problems({ ...base, provider: 'Bad Provider' })[0]?.field).toBe('provider');
    expect(problems({ ...base, bankId: 'b'.repeat(101) })[0]?.field).toBe('bankId');
    expect(problems({ ...base, mockBank: { completeAfterSeconds: 0 } })[0]?.field).toBe(
      'mockBank.completeAfterSeconds',
    );
    expect(problems({ ...base, mockBank: { completeAfterSeconds: 3601 } })[0]?.field).toBe(
      'mockBank.completeAfterSeconds',
    );
    expect(problems({ ...base, mockBank: { completeAfterSeconds: 1.5 } })[0]?.field).toBe(
      'mockBank.completeAfterSeconds',
    );
    expect(problems({ ...base, mockBank: { preset: 'fast' } })[0]?.field).toBe('mockBank.preset');
    expect(problems({ ...base, mockBank: { rejectReason: 'NOAS' } })[0]?.field).toBe('mockBank.rejectReason');
  });

  it('reports one detail per problem', () => {
    expect(problems({}).map((detail) => detail.field)).toEqual(['toAccount', 'amount']);
    expect(problems([]).map((detail) => detail.field)).toEqual(['body']);
  });
});

describe('query validation', () => {
  it('applies defaults and bounds to the payments list', () => {
    expect(ListPaymentsQuery.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(ListPaymentsQuery.parse({ limit: '100', offset: '5' })).toEqual({ limit: 100, offset: 5 });
    for (const limit of ['0', '101', '1.5', '-1', 'ten', '']) {
      expect(ListPaymentsQuery.safeParse({ limit }).success).toBe(false);
    }
    expect(ListPaymentsQuery.safeParse({ status: 'DONE' }).success).toBe(false);
    expect(ListPaymentsQuery.safeParse({ provider: 'p'.repeat(51) }).success).toBe(false);
  });

  it('applies defaults and bounds to the banks list', () => {
    expect(ListBanksQuery.parse({})).toEqual({ page: 1, limit: 100 });
    expect(ListBanksQuery.safeParse({ country: 'GBR' }).success).toBe(false);
    expect(ListBanksQuery.safeParse({ page: '0' }).success).toBe(false);
    expect(ListBanksQuery.safeParse({ search: 's'.repeat(101) }).success).toBe(false);
    expect(ListBanksQuery.safeParse({ paymentMethod: 'm'.repeat(51) }).success).toBe(false);
  });
});

describe('messages and unstorable text', () => {
  it('says missing and too-long fields plainly', () => {
    expect(problems({ ...base, amount: { currency: 'GBP' } })).toEqual([
      { field: 'amount.value', message: 'must be a positive decimal with at most 4 decimal places' },
    ]);
    expect(problems({ amount: base.amount })).toEqual([{ field: 'toAccount', message: 'is required' }]);
    expect(problems({ ...base, reference: 'r'.repeat(141) })).toEqual([
      { field: 'reference', message: 'must be at most 140 characters' },
    ]);
    expect(problems({ ...base, flowType: 'NOPE' })[0]?.message).toBe(
      'must be one of: API_ONLY, HOSTED_PAGES, EMBEDDED_HOSTED_PAGES',
    );
    expect(problems({ ...base, amount: { value: '1234567890123456', currency: 'GBP' } })[0]?.message).toBe(
      'must be at most 15 digits before the decimal point',
    );
  });

  it('refuses currencies that are not transferable money', () => {
    for (const currency of ['XXX', 'XAU', 'XTS', 'XDR']) {
      expect(problems({ ...base, amount: { value: '1', currency } })[0]?.field).toBe('amount.currency');
    }
    for (const currency of ['XOF', 'XAF', 'XCD', 'CHF', 'USD']) {
      expect(problems({ ...base, amount: { value: '1', currency } })).toEqual([]);
    }
  });

  it('finds NUL characters and unpaired surrogates anywhere in a request', () => {
    expect(unusableInputDetails({ a: 'fine é 😀', b: ['ok'] })).toEqual([]);
    expect(unusableInputDetails({ toAccount: { accountName: 'a\u0000b' }, list: ['x', '\ud800'] })).toEqual([
      {
        field: 'toAccount.accountName',
        message: 'must not contain NUL characters or unpaired UTF-16 surrogates',
      },
      { field: 'list.1', message: 'must not contain NUL characters or unpaired UTF-16 surrogates' },
    ]);
    expect(unusableInputDetails('\udc00x')).toHaveLength(1);
  });
});
