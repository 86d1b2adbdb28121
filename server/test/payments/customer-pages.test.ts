import { describe, expect, test } from 'vitest';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import {
  created,
  MINUTE,
  type PaymentData,
  paymentBody,
  post,
  readPayment,
  statuses,
  tokenOf,
  trpcData,
  trpcFailure,
  trpcMutation,
  trpcQuery,
} from './payment-fixtures.ts';

const { app, factories, clock } = await createTestApp();
const { headers } = await factories.createMerchant();

const hostedPayment = async (overrides: Record<string, unknown> = {}) => {
  const data = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES', ...overrides }));
  return { ...data, token: tokenOf(data.redirectUrl) };
};
const bankPayment = async (overrides: Record<string, unknown> = {}) => {
  const data = await created(app, headers, paymentBody(overrides));
  return { ...data, token: tokenOf(data.redirectUrl) };
};

const SUMMARY_KEYS = [
  'amount',
  // A verified merchant's brand, null until the operator verified it (organizations/brand.ts).
  'brand',
  'linkExpiresAt',
  'merchantName',
  'outcome',
  'payee',
  'paymentId',
  'reference',
  'status',
  'testPayment',
];

describe('hosted page', () => {
  test('session: summary, no bank yet, the countries to pick from, nothing next', async () => {
    const payment = await hostedPayment();
    const session = trpcData(await trpcQuery(app, 'pages.hostedSession', { token: payment.token }));
    expect(Object.keys(session).sort()).toEqual(
      [...SUMMARY_KEYS, 'bank', 'countries', 'defaultCountry', 'flowType', 'next'].sort(),
    );
    expect(session).toMatchObject({
      paymentId: payment.paymentId,
      merchantName: 'Test Merchant',
      status: 'PENDING',
      amount: { value: '10.50', currency: 'GBP' },
      payee: { accountName: 'Acme Ltd' },
      reference: 'Order 1001',
      linkExpiresAt: new Date(clock.now().getTime() + 60 * MINUTE).toISOString(),
      outcome: null,
      testPayment: true,
      flowType: 'HOSTED_PAGES',
      bank: null,
      defaultCountry: 'GB',
      next: null,
    });
    expect(session.countries).toEqual(expect.arrayContaining(['GB', 'DE', 'FR']));
  });

  test('banks: the payment provider catalogue, filtered and paged like GET /banks', async () => {
    const { token } = await hostedPayment();
    const list = trpcData<{ banks: { id: string; country: string }[]; pagination: { total: number } }>(
      await trpcQuery(app, 'pages.hostedBanks', { token, country: 'de', limit: 2 }),
    );
    expect(list.banks).toHaveLength(2);
    expect(list.banks.every((bank) => bank.country === 'DE')).toBe(true);
    expect(list.pagination.total).toBe(4);
    const search = trpcData<{ banks: { id: string }[] }>(
      await trpcQuery(app, 'pages.hostedBanks', { token, search: 'albion' }),
    );
    expect(search.banks.map((bank) => bank.id)).toEqual(['mock-gb-albion']);
  });

  test('choosing a bank sends the payment to it (AUTHORIZING) and answers the Mock bank link; a reload goes there too', async () => {
    const payment = await hostedPayment();
    const choice = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', { token: payment.token, bankId: 'mock-fr-seine' }),
    );
    expect(Object.keys(choice)).toEqual(['redirectUrl']);
    expect(choice.redirectUrl).toMatch(/^http:\/\/localhost:3000\/mock-bank\//);
    const stored = await readPayment(app, headers, payment.paymentId);
    expect(stored).toMatchObject({ status: 'AUTHORIZING', bankId: 'mock-fr-seine' });
    expect(stored.statusHistory.at(-1)).toMatchObject({ status: 'AUTHORIZING', provider: 'mock' });
    // The customer chose the bank: the timeline says so.
    expect(stored.statusHistory.at(-1)).toMatchObject({ actor: { type: 'customer' } });

    const session = trpcData<{ next: { mockBankUrl: string }; bank: { id: string }; defaultCountry: string }>(
      await trpcQuery(app, 'pages.hostedSession', { token: payment.token }),
    );
    expect(session.bank.id).toBe('mock-fr-seine');
    expect(session.defaultCountry).toBe('FR');
    expect(session.next.mockBankUrl).toMatch(/\/mock-bank\//);
    // The bank page opens with either link.
    for (const url of [choice.redirectUrl, session.next.mockBankUrl]) {
      trpcData(await trpcQuery(app, 'pages.mockBankSession', { token: tokenOf(url) }));
    }

    const again = trpcFailure(
      await trpcMutation(app, 'pages.chooseBank', { token: payment.token, bankId: 'mock-gb-albion' }),
      409,
    );
    expect(again.kind).toBe('PAYMENT_ALREADY_DECIDED');
  });

  test('a bank the merchant cannot reach, or not taking payments, is a validation failure', async () => {
    const { token } = await hostedPayment();
    for (const bankId of ['mock-nowhere', 'mock-gb-heritage']) {
      const failure = trpcFailure(await trpcMutation(app, 'pages.chooseBank', { token, bankId }), 400);
      expect(failure.kind).toBe('VALIDATION_FAILED');
    }
  });

  test('embedded flow: the merchant chose the bank; the page confirms it and cannot change it', async () => {
    const payment = await hostedPayment({ flowType: 'EMBEDDED_HOSTED_PAGES', bankId: 'mock-ie-liffey' });
    const session = trpcData<{ flowType: string; bank: { id: string }; defaultCountry: string }>(
      await trpcQuery(app, 'pages.hostedSession', { token: payment.token }),
    );
    expect(session).toMatchObject({
      flowType: 'EMBEDDED_HOSTED_PAGES',
      bank: { id: 'mock-ie-liffey' },
      defaultCountry: 'IE',
    });
    const other = trpcFailure(
      await trpcMutation(app, 'pages.chooseBank', { token: payment.token, bankId: 'mock-gb-albion' }),
      400,
    );
    expect(other.kind).toBe('VALIDATION_FAILED');
    trpcData(await trpcMutation(app, 'pages.chooseBank', { token: payment.token, bankId: 'mock-ie-liffey' }));
  });

  test('the hosted link lasts one hour', async () => {
    const { token } = await hostedPayment();
    clock.advance(60 * MINUTE - 1000);
    trpcData(await trpcQuery(app, 'pages.hostedSession', { token }));
    clock.advance(1000);
    const expired = trpcFailure(await trpcQuery(app, 'pages.hostedSession', { token }), 410);
    expect(expired.kind).toBe('LINK_EXPIRED');
    expect(expired.message).toMatch(/1 hour/);
    expect(
      trpcFailure(await trpcMutation(app, 'pages.chooseBank', { token, bankId: 'mock-gb-albion' }), 410).kind,
    ).toBe('LINK_EXPIRED');
  });
});

describe('Mock bank page', () => {
  test('session: summary, bank, and the request scenario as the defaults', async () => {
    const payment = await bankPayment({
      bankId: 'mock-gb-thames',
      mockBank: { completeAfterSeconds: 30, rejectReason: 'AM04' },
    });
    const session = trpcData(await trpcQuery(app, 'pages.mockBankSession', { token: payment.token }));
    expect(Object.keys(session).sort()).toEqual([...SUMMARY_KEYS, 'bank', 'scenario'].sort());
    expect(session).toMatchObject({
      paymentId: payment.paymentId,
      status: 'AUTHORIZING',
      outcome: null,
      bank: { id: 'mock-gb-thames' },
      linkExpiresAt: new Date(clock.now().getTime() + 30 * MINUTE).toISOString(),
      scenario: { preset: 'instant', completeAfterSeconds: 30, rejectReason: 'AM04' },
    });
    const plain = await bankPayment();
    expect(trpcData(await trpcQuery(app, 'pages.mockBankSession', { token: plain.token }))).toMatchObject({
      bank: null,
      scenario: { preset: 'instant', completeAfterSeconds: null, rejectReason: 'CUST' },
    });
  });

  test("approve: the page's scenario overrides the request's; the customer returns with the status of that moment", async () => {
    const payment = await bankPayment({ mockBank: { completeAfterSeconds: 600 } });
    const result = trpcData(
      await trpcMutation(app, 'pages.approve', { token: payment.token, scenario: { preset: 'realistic' } }),
    );
    expect(result).toEqual({
      paymentId: payment.paymentId,
      status: 'AUTHORIZED',
      returnUrl: `https://shop.example/return?order=1001&paymentId=${payment.paymentId}&status=AUTHORIZED`,
    });
    clock.advance(60_000);
    const completed = await readPayment(app, headers, payment.paymentId);
    expect(completed.status).toBe('COMPLETED');
    // The customer approved (ACTC) at the Mock bank; its later steps are the bank's.
    expect(completed.statusHistory.slice(-4).map((entry) => entry.actor?.type)).toEqual([
      'customer',
      'bank',
      'bank',
      'bank',
    ]);
  });

  test("approve without a choice uses the request's scenario", async () => {
    const payment = await bankPayment({ mockBank: { preset: 'slow' } });
    const result = trpcData<{ status: string }>(
      await trpcMutation(app, 'pages.approve', { token: payment.token }),
    );
    expect(result.status).toBe('AUTHORIZED');
    clock.advance(30_000);
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('SUBMITTED');
  });

  test('reject with a reason: FAILED, and the return URL says so', async () => {
    const payment = await bankPayment({ redirectUrl: undefined });
    const result = trpcData(
      await trpcMutation(app, 'pages.reject', { token: payment.token, reason: 'AC04' }),
    );
    expect(result).toEqual({ paymentId: payment.paymentId, status: 'FAILED', returnUrl: null });
    const stored = await readPayment(app, headers, payment.paymentId);
    expect(stored).toMatchObject({
      status: 'FAILED',
      isoStatus: { reason: { code: 'AC04' } },
      error: { code: 'AC04' },
    });
  });

  test('a decided payment cannot be decided twice; the page then shows the outcome', async () => {
    const payment = await bankPayment();
    trpcData(await trpcMutation(app, 'pages.approve', { token: payment.token, scenario: {} }));
    for (const [path, input] of [
      ['pages.approve', { token: payment.token, scenario: { preset: 'slow' } }],
      ['pages.reject', { token: payment.token, reason: 'CUST' }],
    ] as const) {
      const failure = trpcFailure(await trpcMutation(app, path, input), 409);
      expect(failure).toMatchObject({ kind: 'PAYMENT_ALREADY_DECIDED', code: 'PAYMENT_ALREADY_DECIDED' });
    }
    const session = trpcData(await trpcQuery(app, 'pages.mockBankSession', { token: payment.token }));
    expect(session).toMatchObject({
      status: 'COMPLETED',
      outcome: {
        status: 'COMPLETED',
        returnUrl: `https://shop.example/return?order=1001&paymentId=${payment.paymentId}&status=COMPLETED`,
      },
    });
    expect(
      statuses(
        expectSuccess<PaymentData>(await post(app, headers, `/api/payments/${payment.paymentId}/sync`)),
      ),
    ).toEqual(['PENDING', 'AUTHORIZING', 'COMPLETED']);
  });

  test('a cancelled payment shows its outcome and cannot be approved', async () => {
    const payment = await bankPayment();
    await post(app, headers, `/api/payments/${payment.paymentId}/cancel`);
    expect(trpcData(await trpcQuery(app, 'pages.mockBankSession', { token: payment.token }))).toMatchObject({
      outcome: { status: 'CANCELLED' },
    });
    expect(trpcFailure(await trpcMutation(app, 'pages.approve', { token: payment.token }), 409).kind).toBe(
      'PAYMENT_ALREADY_DECIDED',
    );
  });

  test('the Mock bank link lasts 30 minutes', async () => {
    const { token } = await bankPayment();
    clock.advance(30 * MINUTE);
    const expired = trpcFailure(await trpcMutation(app, 'pages.approve', { token }), 410);
    expect(expired.kind).toBe('LINK_EXPIRED');
    expect(expired.message).toMatch(/30 minutes/);
  });
});

describe('link tokens', () => {
  test('tampered, foreign or misdirected tokens get LINK_INVALID on every procedure', async () => {
    const hosted = await hostedPayment();
    const bank = await bankPayment();
    const tamper = (token: string) => `${token.slice(0, 5)}${token[5] === 'A' ? 'B' : 'A'}${token.slice(6)}`;
    const calls: [string, 'query' | 'mutation', Record<string, unknown>][] = [
      ['pages.hostedSession', 'query', { token: tamper(hosted.token) }],
      ['pages.hostedBanks', 'query', { token: tamper(hosted.token) }],
      ['pages.chooseBank', 'mutation', { token: tamper(hosted.token), bankId: 'mock-gb-albion' }],
      ['pages.mockBankSession', 'query', { token: tamper(bank.token) }],
      ['pages.approve', 'mutation', { token: tamper(bank.token) }],
      ['pages.reject', 'mutation', { token: tamper(bank.token), reason: 'CUST' }],
      // A genuine link for the other page.
      ['pages.hostedSession', 'query', { token: bank.token }],
      ['pages.mockBankSession', 'query', { token: hosted.token }],
      ['pages.approve', 'mutation', { token: hosted.token }],
      ['pages.hostedSession', 'query', { token: 'garbage' }],
    ];
    for (const [path, kind, input] of calls) {
      const response =
        kind === 'query' ? await trpcQuery(app, path, input) : await trpcMutation(app, path, input);
      expect(trpcFailure(response, 400), path).toMatchObject({ kind: 'LINK_INVALID', code: 'LINK_INVALID' });
    }
    // Nothing changed.
    expect((await readPayment(app, headers, bank.paymentId)).status).toBe('AUTHORIZING');
  });

  test('a missing token is a validation failure; the pages are not part of the REST API', async () => {
    expect(trpcFailure(await trpcQuery(app, 'pages.hostedSession', {}), 400).kind).toBe('VALIDATION_FAILED');
    const document = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    expect(JSON.stringify(Object.keys(document.paths))).not.toMatch(/pages|hosted|session/i);
  });
});
