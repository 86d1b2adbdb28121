import { describe, expect, test } from 'vitest';
import { verifyLinkToken } from '../../src/links/link-token.ts';
import { expectFailure, expectSuccess, expectValidationFailed } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  type CreatedData,
  created,
  createPayment,
  HOUR,
  MINUTE,
  paymentBody,
  readPayment,
  recordingScheduler,
  statuses,
  tokenOf,
} from './payment-fixtures.ts';

const recorder = recordingScheduler();
const { app, factories, clock, config, orm } = await createTestApp({ scheduler: recorder.scheduler });
const merchant = await factories.createMerchant();
const { headers } = merchant;

const CREATED_KEYS = [
  'amount',
  'createdAt',
  'expiresAt',
  'isoStatus',
  'paymentId',
  'provider',
  'redirectUrl',
  'status',
];

/** The amount as Postgres holds it (numeric as text): proof that nothing was rounded on the way. */
async function storedAmount(paymentId: string) {
  const [row] = await orm.em
    .fork()
    .getConnection()
    .execute<{ text: string }[]>('select amount_value::text as text from payment where id = ?', [paymentId]);
  return row?.text;
}

/** Field names of a VALIDATION_FAILED answer to this body. */
async function invalidFields(body: unknown) {
  return (await expectValidationFailed(await createPayment(app, headers, body))).map(
    (detail) => detail.field,
  );
}

describe('POST /api/payments: flows', () => {
  test('API_ONLY (default) goes to the Mock bank at once: AUTHORIZING, a 30-minute Mock bank link, expiry in 24 h', async () => {
    const now = clock.now();
    const data = await created(app, headers);
    expect(Object.keys(data).sort()).toEqual(CREATED_KEYS);
    expect(data.paymentId).toMatch(/^pay_[0-9A-Za-z]{24}$/);
    expect(data).toMatchObject({
      status: 'AUTHORIZING',
      isoStatus: { code: 'PDNG', name: 'Pending' },
      provider: 'mock',
      amount: { value: '10.50', currency: 'GBP' },
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + 24 * HOUR).toISOString(),
    });
    expect(data.isoStatus.reason).toBeUndefined();
    expect(data.redirectUrl).toMatch(/^http:\/\/localhost:3000\/mock-bank\//);
    const claims = verifyLinkToken(config.linkSigningSecret, tokenOf(data.redirectUrl), 'mock-bank', now);
    expect(claims.paymentId).toBe(data.paymentId);
    expect(claims.expiresAt.getTime() - now.getTime()).toBe(30 * MINUTE);

    const payment = await readPayment(app, headers, data.paymentId);
    expect(payment.flowType).toBe('API_ONLY');
    expect(statuses(payment)).toEqual(['PENDING', 'AUTHORIZING']);
    expect(payment.statusHistory.map((entry) => entry.isoStatus.code)).toEqual(['RCVD', 'PDNG']);
    // The merchant's return URL is kept as given; the customer link is not part of the payment.
    expect(payment.redirectUrl).toBe('https://shop.example/return?order=1001');
  });

  test('HOSTED_PAGES stays PENDING (nothing sent to the provider) and links the 1-hour hosted page', async () => {
    const now = clock.now();
    const data = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    expect(data).toMatchObject({ status: 'PENDING', isoStatus: { code: 'RCVD', name: 'Received' } });
    expect(data.redirectUrl).toMatch(/^http:\/\/localhost:3000\/pay\//);
    const claims = verifyLinkToken(config.linkSigningSecret, tokenOf(data.redirectUrl), 'hosted', now);
    expect(claims.expiresAt.getTime() - now.getTime()).toBe(HOUR);
    expect(statuses(await readPayment(app, headers, data.paymentId))).toEqual(['PENDING']);
  });

  test('EMBEDDED_HOSTED_PAGES needs a bankId (400 on bankId) and keeps it', async () => {
    expect(
      await expectValidationFailed(
        await createPayment(app, headers, paymentBody({ flowType: 'EMBEDDED_HOSTED_PAGES' })),
      ),
    ).toContainEqual({ field: 'bankId', message: 'is required for EMBEDDED_HOSTED_PAGES' });
    const data = await created(
      app,
      headers,
      paymentBody({ flowType: 'EMBEDDED_HOSTED_PAGES', bankId: 'mock-gb-albion' }),
    );
    expect(Object.keys(data).sort()).toEqual([...CREATED_KEYS, 'bankId'].sort());
    expect(data).toMatchObject({ status: 'PENDING', bankId: 'mock-gb-albion' });
    expect(data.redirectUrl).toMatch(/\/pay\//);
  });

  test('API_ONLY with a bankId sends the payment to that bank', async () => {
    const data = await created(app, headers, paymentBody({ bankId: 'mock-de-rhein' }));
    expect(data.bankId).toBe('mock-de-rhein');
    expect((await readPayment(app, headers, data.paymentId)).bankId).toBe('mock-de-rhein');
  });

  test('each payment gets its own opaque id and end-to-end id; without a reference, the merchant’s name and a short code', async () => {
    const a = await readPayment(
      app,
      headers,
      (await created(app, headers, paymentBody({ reference: undefined }))).paymentId,
    );
    const b = await readPayment(app, headers, (await created(app, headers)).paymentId);
    expect(a.paymentId).not.toBe(b.paymentId);
    expect(a.reference.endToEndId).toMatch(/^[0-9A-F]{32}$/);
    // What the customer reads at the bank: never the hex id (issue 34 item 7).
    expect(a.reference.reference).toMatch(/^Test Merchant [0-9A-HJKMNP-TV-Z]{6}$/);
    expect(b.reference).toEqual({
      reference: 'Order 1001',
      endToEndId: expect.stringMatching(/^[0-9A-F]{32}$/),
    });
    const c = await readPayment(
      app,
      headers,
      (await created(app, headers, paymentBody({ reference: { reference: 'Inv 7', endToEndId: 'E2E-7' } })))
        .paymentId,
    );
    expect(c.reference).toEqual({ reference: 'Inv 7', endToEndId: 'E2E-7' });
  });

  test('the scheduler hears of the expiry (24 h) after the commit', async () => {
    const data = await created(app, headers);
    expect(recorder.calls).toContainEqual({ paymentId: data.paymentId, dueAt: data.expiresAt });
  });
});

describe('POST /api/payments: amount', () => {
  test('a string or a number in, the same decimal string out (stored as numeric without rounding)', async () => {
    const cases: [unknown, string][] = [
      ['10.50', '10.50'],
      [10.5, '10.5'],
      ['0.001', '0.001'],
      [42, '42'],
      ['123456789012345.123', '123456789012345.123'],
      ['007.10', '7.10'],
    ];
    for (const [value, expected] of cases) {
      const data = await created(app, headers, paymentBody({ amount: { value, currency: 'KWD' } }));
      expect(data.amount).toEqual({ value: expected, currency: 'KWD' });
      expect((await readPayment(app, headers, data.paymentId)).amount.value).toBe(expected);
      expect(await storedAmount(data.paymentId)).toBe(expected);
    }
  });

  test('zero, negative, more than 4 decimals, exponent, non-numeric and missing amounts are refused', async () => {
    for (const value of ['0', 0, '-1', -5, '1.23456', 1.23456, '1e3', 'ten', '', ' 1', '1.', null, true]) {
      const details = await expectValidationFailed(
        await createPayment(app, headers, paymentBody({ amount: { value, currency: 'GBP' } })),
      );
      expect(details, JSON.stringify(value)).toEqual([
        { field: 'amount.value', message: 'must be a positive decimal with at most 4 decimal places' },
      ]);
    }
    expect(await invalidFields(paymentBody({ amount: { currency: 'GBP' } }))).toEqual(['amount.value']);
    expect(await invalidFields(paymentBody({ amount: undefined }))).toEqual(['amount']);
  });

  test('a JSON number literal is read from its text: nothing rounded, the string rule, and stored exactly', async () => {
    const raw = (literal: string, currency = 'GBP') =>
      app.inject({
        method: 'POST',
        url: '/api/payments',
        headers: { ...headers, 'content-type': 'application/json' },
        payload: JSON.stringify(paymentBody({ amount: { value: 0, currency } })).replace(
          '"value":0',
          `"value":${literal}`,
        ),
      });
    // Once stored as "100000000000000" and "10": parsed to a float first.
    for (const literal of ['99999999999999.99999', '10.00000000000000001', '1.23456', '0.00000']) {
      expect(await expectValidationFailed(await raw(literal)), literal).toEqual([
        { field: 'amount.value', message: 'must be a positive decimal with at most 4 decimal places' },
      ]);
    }
    // A double holds 99999999999999.98, not .99: the literal's own digits are what is stored.
    for (const [literal, expected] of [
      ['99999999999999.99', '99999999999999.99'],
      ['10.5', '10.5'],
      ['1e2', '100'],
    ] as const) {
      const data = expectSuccess<CreatedData>(await raw(literal), 201);
      expect(data.amount.value).toBe(expected);
      expect(await storedAmount(data.paymentId)).toBe(expected);
    }
    const fourPlaces = expectSuccess<CreatedData>(await raw('0.0001'), 201);
    expect(fourPlaces.amount).toEqual({ value: '0.0001', currency: 'GBP' });
    expect(await storedAmount(fourPlaces.paymentId)).toBe('0.0001');
  });

  test('up to 4 decimal places in every currency, as the specification says (no minor-units rule)', async () => {
    for (const [value, currency] of [
      ['0.0001', 'GBP'],
      ['10.005', 'GBP'],
      ['0.0001', 'EUR'],
      ['100.5', 'JPY'],
      ['1.0005', 'KWD'],
      ['1500', 'JPY'],
    ] as const) {
      const data = await created(app, headers, paymentBody({ amount: { value, currency } }));
      expect(data.amount, `${value} ${currency}`).toEqual({ value, currency });
      expect(await storedAmount(data.paymentId)).toBe(value);
    }
    const asNumber = await created(app, headers, paymentBody({ amount: { value: 0.0001, currency: 'GBP' } }));
    expect(asNumber.amount).toEqual({ value: '0.0001', currency: 'GBP' });
  });

  test('currency must be an ISO 4217 code that exists', async () => {
    for (const currency of ['XXY', 'gbp', 'GB', 'EURO', '']) {
      expect(await invalidFields(paymentBody({ amount: { value: '1', currency } })), currency).toEqual([
        'amount.currency',
      ]);
    }
    expect(
      (await created(app, headers, paymentBody({ amount: { value: '1', currency: 'JPY' } }))).amount.currency,
    ).toBe('JPY');
  });
});

describe('POST /api/payments: accounts and reference', () => {
  const long = (n: number) => 'x'.repeat(n);

  test('every maximum length of Account, on toAccount and fromAccount', async () => {
    const limits: [string, number][] = [
      ['accountName', 140],
      ['bankName', 140],
      ['bic', 11],
      ['accountNumber', 34],
    ];
    for (const [field, max] of limits) {
      for (const side of ['toAccount', 'fromAccount']) {
        const account = { ...paymentBody().toAccount, [field]: long(max + 1) };
        expect(await invalidFields(paymentBody({ [side]: account })), `${side}.${field}`).toContain(
          `${side}.${field}`,
        );
        await created(
          app,
          headers,
          paymentBody({ [side]: { ...paymentBody().toAccount, [field]: long(max) } }),
        );
      }
    }
    const iban35 = `GB82WEST12345698765432${'1'.repeat(13)}`;
    expect(await invalidFields(paymentBody({ toAccount: { accountName: 'A', iban: iban35 } }))).toEqual([
      'toAccount.iban',
    ]);
    expect(
      await invalidFields(
        paymentBody({ toAccount: { accountName: 'A', sortCode: '12-34-56-7', accountNumber: '1' } }),
      ),
    ).toEqual(['toAccount.sortCode']);
  });

  test('toAccount needs an iban, or a sortCode with an accountNumber', async () => {
    expect(await invalidFields(paymentBody({ toAccount: { accountName: 'A' } }))).toEqual(['toAccount']);
    expect(await invalidFields(paymentBody({ toAccount: { accountName: 'A', sortCode: '123456' } }))).toEqual(
      ['toAccount.accountNumber'],
    );
    expect(
      await invalidFields(paymentBody({ toAccount: { accountName: 'A', accountNumber: '12345678' } })),
    ).toEqual(['toAccount.sortCode']);
    expect(await invalidFields(paymentBody({ toAccount: { iban: 'GB82WEST12345698765432' } }))).toEqual([
      'toAccount.accountName',
    ]);
    // A fromAccount needs neither (it is informational).
    await created(app, headers, paymentBody({ fromAccount: { accountName: 'Payer' } }));
  });

  test('IBAN checksum is verified; spaces and lower case are normalised', async () => {
    expect(
      await invalidFields(paymentBody({ toAccount: { accountName: 'A', iban: 'GB82WEST12345698765433' } })),
    ).toEqual(['toAccount.iban']);
    const data = await created(
      app,
      headers,
      paymentBody({ toAccount: { accountName: 'A', iban: 'gb82 west 1234 5698 7654 32' } }),
    );
    expect((await readPayment(app, headers, data.paymentId)).toAccount).toEqual({
      accountName: 'A',
      iban: 'GB82WEST12345698765432',
    });
  });

  test('UK sort code with or without dashes, nothing else', async () => {
    for (const sortCode of ['123456', '12-34-56']) {
      const data = await created(
        app,
        headers,
        paymentBody({ toAccount: { accountName: 'A', sortCode, accountNumber: '12345678' } }),
      );
      expect((await readPayment(app, headers, data.paymentId)).toAccount.sortCode).toBe('123456');
    }
    for (const sortCode of ['12345', '12-34-5a', '12 34 56', '1234567']) {
      expect(
        await invalidFields(
          paymentBody({ toAccount: { accountName: 'A', sortCode, accountNumber: '12345678' } }),
        ),
        sortCode,
      ).toEqual(['toAccount.sortCode']);
    }
  });

  test('reference: string or object, 140 and 35 characters at most', async () => {
    expect(await invalidFields(paymentBody({ reference: long(141) }))).toEqual(['reference']);
    expect(await invalidFields(paymentBody({ reference: { reference: long(141) } }))).toEqual([
      'reference.reference',
    ]);
    expect(await invalidFields(paymentBody({ reference: { reference: 'R', endToEndId: long(36) } }))).toEqual(
      ['reference.endToEndId'],
    );
    expect(await invalidFields(paymentBody({ reference: 42 }))).toEqual(['reference']);
    await created(app, headers, paymentBody({ reference: long(140) }));
    await created(app, headers, paymentBody({ reference: { reference: long(140), endToEndId: long(35) } }));
  });
});

describe('POST /api/payments: flow, redirectUrl, provider, bankId, mockBank', () => {
  test('flowType is one of the three', async () => {
    expect(await invalidFields(paymentBody({ flowType: 'REDIRECT' }))).toEqual(['flowType']);
  });

  test('redirectUrl must be an absolute http(s) URL', async () => {
    for (const redirectUrl of ['ftp://shop.example/x', 'javascript:alert(1)', '/relative', 'not a url']) {
      expect(await invalidFields(paymentBody({ redirectUrl })), redirectUrl).toEqual(['redirectUrl']);
    }
    await created(app, headers, paymentBody({ redirectUrl: 'http://localhost:8080/done' }));
  });

  test('provider must match ^[a-z0-9_-]{1,50}$', async () => {
    for (const provider of ['Mock', 'mo ck', '', 'x'.repeat(51), 'bank!']) {
      expect(await invalidFields(paymentBody({ provider })), provider).toEqual(['provider']);
    }
  });

  test('bankId: at most 100 characters, and a bank the organization can reach that takes payments', async () => {
    expect(await invalidFields(paymentBody({ bankId: 'b'.repeat(101) }))).toEqual(['bankId']);
    for (const bankId of ['no-such-bank', 'mock-gb-heritage']) {
      const details = await expectValidationFailed(
        await createPayment(app, headers, paymentBody({ bankId })),
      );
      expect(
        details.map((detail) => detail.field),
        bankId,
      ).toEqual(['bankId']);
    }
  });

  test('mockBank scenarios: presets, completeAfterSeconds 1..3600 (integer), reject reasons', async () => {
    for (const mockBank of [
      { preset: 'instant' },
      { preset: 'realistic', rejectReason: 'AM04' },
      { preset: 'slow', rejectReason: 'AC04' },
      { completeAfterSeconds: 1, rejectReason: 'NARR' },
      { completeAfterSeconds: 3600, rejectReason: 'CUST' },
      {},
    ]) {
      await created(app, headers, paymentBody({ mockBank }));
    }
    const bad: [Record<string, unknown>, string][] = [
      [{ preset: 'fast' }, 'mockBank.preset'],
      [{ completeAfterSeconds: 0 }, 'mockBank.completeAfterSeconds'],
      [{ completeAfterSeconds: 3601 }, 'mockBank.completeAfterSeconds'],
      [{ completeAfterSeconds: 1.5 }, 'mockBank.completeAfterSeconds'],
      [{ completeAfterSeconds: '5' }, 'mockBank.completeAfterSeconds'],
      [{ rejectReason: 'NOAS' }, 'mockBank.rejectReason'],
    ];
    for (const [mockBank, field] of bad) {
      expect(await invalidFields(paymentBody({ mockBank })), JSON.stringify(mockBank)).toEqual([field]);
    }
  });

  test('several problems are reported together, one detail each', async () => {
    const fields = await invalidFields({
      toAccount: { accountName: '' },
      amount: { value: '-1', currency: 'XXX1' },
      flowType: 'NOPE',
    });
    expect(fields).toEqual(
      expect.arrayContaining(['toAccount.accountName', 'amount.value', 'amount.currency', 'flowType']),
    );
  });
});

describe('POST /api/payments: who may create what', () => {
  test('mockBank with another provider is 400 MOCK_BANK_ONLY', async () => {
    const error = expectFailure(
      await createPayment(app, headers, paymentBody({ provider: 'acme', mockBank: { preset: 'instant' } })),
      400,
    );
    expect(error.code).toBe('MOCK_BANK_ONLY');
  });

  test('a provider the organization is not approved for is 403 PROVIDER_NOT_APPROVED', async () => {
    const error = expectFailure(await createPayment(app, headers, paymentBody({ provider: 'acme' })), 403);
    expect(error).toEqual({
      code: 'PROVIDER_NOT_APPROVED',
      message: 'Organization is not approved for provider acme',
    });
  });

  test('an approved provider without an adapter is 503 PROVIDER_NOT_CONFIGURED', async () => {
    const other = await factories.createMerchant();
    await factories.approveProvider(other.organizationId, 'acme');
    const error = expectFailure(
      await createPayment(app, other.headers, paymentBody({ provider: 'acme' })),
      503,
    );
    expect(error.code).toBe('PROVIDER_NOT_CONFIGURED');
  });

  test('a read-only key is 403, no key 401, and nothing is created', async () => {
    const reader = await factories.createMerchant('read');
    expect(expectFailure(await createPayment(app, reader.headers), 403)).toEqual({
      message: 'API key lacks write permission',
    });
    expectFailure(await createPayment(app, {}), 401);
    const list = expectSuccess<{ total: number }>(
      await app.inject({ method: 'GET', url: '/api/payments', headers: reader.headers }),
    );
    expect(list.total).toBe(0);
  });
});

describe('POST /api/payments with hosted pages switched off', async () => {
  const off = await createTestApp({ config: { hostedPagesEnabled: false } });
  const offMerchant = await off.factories.createMerchant();

  test('hosted flows are 503 HOSTED_PAGES_NOT_CONFIGURED; API_ONLY still works', async () => {
    for (const flowType of ['HOSTED_PAGES', 'EMBEDDED_HOSTED_PAGES']) {
      const error = expectFailure(
        await createPayment(
          off.app,
          offMerchant.headers,
          paymentBody({ flowType, bankId: 'mock-gb-albion' }),
        ),
        503,
      );
      expect(error.code).toBe('HOSTED_PAGES_NOT_CONFIGURED');
    }
    const data = expectSuccess<CreatedData>(await createPayment(off.app, offMerchant.headers), 201);
    expect(data.status).toBe('AUTHORIZING');
  });
});
