import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startTestBank, until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { ObieAuthorization, Payment } from '../../src/db/entities/index.ts';
import { silentLogger } from '../../src/logger.ts';
import { loadPayment } from '../../src/payments/load-payment.ts';
import { createObieProvider } from '../../src/providers/obie/obie-provider.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import {
  created,
  createPayment,
  paymentBody,
  post,
  readPayment,
  statuses,
  tokenOf,
  trpcData,
  trpcMutation,
} from '../payments/payment-fixtures.ts';

/**
 * The `obie` provider against the real sandbox bank (its own database, free ports, fresh keys),
 * the customer at the bank's pages without a browser (sandbox-bank/test/support/customer.ts),
 * back through our callback.
 */
const PUBLIC_BASE_URL = 'http://localhost:3000';
const CALLBACK = `${PUBLIC_BASE_URL}/providers/obie/callback`;
const BANK_ID = 'obie-sandbox-bank';

const bankDatabase = await createTestDatabase();
const bank = await startTestBank({ databaseUrl: bankDatabase.url, redirectUris: [CALLBACK], stepMs: 200 });
afterAll(async () => {
  await bank.stop();
  await bankDatabase.drop();
});

const CONNECTIONS = [
  { bankId: BANK_ID, name: 'Sandbox Bank', clientFile: path.join(bank.dataDir, 'client.json') },
];
const { app, factories, orm } = await createTestApp({
  config: {
    publicBaseUrl: PUBLIC_BASE_URL,
    obieConnections: CONNECTIONS,
  },
});
const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'obie');
const { headers } = merchant;
const notApproved = await factories.createMerchant();

const obiePayment = (overrides: Record<string, unknown> = {}) =>
  created(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID, ...overrides }));

/** Our callback as the customer's browser reaches it (path and query of the bank's redirect). */
async function backAtCallback(bankRedirect: string) {
  const url = new URL(bankRedirect);
  return app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
}

/** Where our callback's page sends the customer on (its Refresh header; the page links it too). */
const onward = (response: { headers: Record<string, unknown>; body: string }) => {
  const target = /^0; url=(.+)$/.exec(String(response.headers.refresh))?.[1] ?? '';
  expect(response.body).toContain('Continue to the shop');
  return new URL(target);
};

const sync = (paymentId: string) => post(app, headers, `/api/payments/${paymentId}/sync`);

describe('obie through the sandbox bank', () => {
  test('API_ONLY: consent, authorization at the bank, callback, payment, statuses to COMPLETED', async () => {
    const payment = await obiePayment();
    expect(payment).toMatchObject({ status: 'AUTHORIZING', provider: 'obie', bankId: BANK_ID });
    const authorizationUrl = new URL(payment.redirectUrl as string);
    expect(authorizationUrl.searchParams.get('request_uri')).toMatch(/^urn:/);

    const redirect = await customerAt(authorizationUrl, CALLBACK, { action: 'approve' });
    const back = await backAtCallback(redirect);
    expect(back.statusCode).toBe(200);
    const merchantReturn = onward(back);
    expect(merchantReturn.origin).toBe('https://shop.example');
    expect(merchantReturn.searchParams.get('paymentId')).toBe(payment.paymentId);
    expect(['SUBMITTED', 'ACCEPTED', 'COMPLETED']).toContain(merchantReturn.searchParams.get('status'));

    const stored = await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId });
    expect(stored.consentStatus).toBe('COND');
    expect(stored.bankStatus).not.toBeNull();

    const done = await until(async () => {
      await sync(payment.paymentId);
      const read = await readPayment(app, headers, payment.paymentId);
      return read.status === 'COMPLETED' ? read : undefined;
    });
    expect(done.isoStatus.code).toBe('ACSC');
    expect(statuses(done)).toEqual(['PENDING', 'AUTHORIZING', ...statuses(done).slice(2)]);
    expect(statuses(done).at(-1)).toBe('COMPLETED');
    const final = await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId });
    expect(final.bankStatus).toBe('ACSC');
  });

  test('the customer rejects at the bank: FAILED / RJCT / CUST', async () => {
    const payment = await obiePayment();
    const redirect = await customerAt(new URL(payment.redirectUrl as string), CALLBACK, { action: 'reject' });
    const back = await backAtCallback(redirect);
    expect(back.statusCode).toBe(200);
    expect(onward(back).searchParams.get('status')).toBe('FAILED');
    const read = await readPayment(app, headers, payment.paymentId);
    expect(read).toMatchObject({ status: 'FAILED', isoStatus: { code: 'RJCT', reason: { code: 'CUST' } } });
  });

  test('more than the balance: FAILED / RJCT / AM04 with the reason as error', async () => {
    const payment = await obiePayment({ amount: { value: '300.00', currency: 'GBP' } });
    const redirect = await customerAt(new URL(payment.redirectUrl as string), CALLBACK, {
      action: 'approve',
      account: 'acc-savings',
    });
    expect((await backAtCallback(redirect)).statusCode).toBe(200);
    const failed = await until(async () => {
      await sync(payment.paymentId);
      const read = await readPayment(app, headers, payment.paymentId);
      return read.status === 'FAILED' ? read : undefined;
    });
    expect(failed).toMatchObject({
      isoStatus: { code: 'RJCT', reason: { code: 'AM04' } },
      error: { code: 'AM04' },
    });
  });

  test('a replayed callback changes nothing and shows a page; a forged one too', async () => {
    const payment = await obiePayment();
    const redirect = await customerAt(new URL(payment.redirectUrl as string), CALLBACK, {
      action: 'approve',
    });
    expect((await backAtCallback(redirect)).statusCode).toBe(200);
    const before = await orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });

    const replay = await backAtCallback(redirect);
    expect(replay.statusCode).toBe(400);
    expect(replay.headers['content-type']).toContain('text/html');
    const after = await orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    expect(after.bankPaymentId).toBe(before.bankPaymentId);

    const url = new URL(redirect);
    const [header, body] = (url.searchParams.get('response') as string).split('.');
    url.searchParams.set('response', `${header}.${body}.${'A'.repeat(342)}`);
    const forged = await backAtCallback(url.href);
    expect(forged.statusCode).toBe(400);

    const junk = await app.inject({ method: 'GET', url: '/providers/obie/callback?response=garbage' });
    expect(junk.statusCode).toBe(400);
  });

  test('obie not approved: 403 PROVIDER_NOT_APPROVED, nothing stored', async () => {
    const before = await orm.em.fork().count(Payment, {});
    const error = expectFailure(
      await createPayment(app, notApproved.headers, paymentBody({ provider: 'obie', bankId: BANK_ID })),
      403,
    );
    expect(error.code).toBe('PROVIDER_NOT_APPROVED');
    expect(await orm.em.fork().count(Payment, {})).toBe(before);
  });

  test('HOSTED_PAGES: the picker lists the sandbox bank, choosing it starts the consent, the payment completes', async () => {
    const payment = await obiePayment({ flowType: 'HOSTED_PAGES', bankId: undefined });
    expect(payment.status).toBe('PENDING');
    const token = tokenOf(payment.redirectUrl);
    const banks = trpcData<{ banks: { id: string }[] }>(
      await app.inject({
        method: 'GET',
        url: `/trpc/pages.hostedBanks?input=${encodeURIComponent(JSON.stringify({ token, country: 'GB' }))}`,
      }),
    );
    expect(banks.banks.map((bank) => bank.id)).toEqual([BANK_ID]);
    const choice = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', { token, bankId: BANK_ID }),
    );
    const redirect = await customerAt(new URL(choice.redirectUrl), CALLBACK, { action: 'approve' });
    const back = await backAtCallback(redirect);
    expect(back.statusCode).toBe(200);
    await until(async () => {
      await sync(payment.paymentId);
      return (await readPayment(app, headers, payment.paymentId)).status === 'COMPLETED';
    });
  });

  test('EMBEDDED_HOSTED_PAGES: the merchant chose the bank, the page confirms it', async () => {
    const payment = await obiePayment({ flowType: 'EMBEDDED_HOSTED_PAGES' });
    const choice = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', { token: tokenOf(payment.redirectUrl), bankId: BANK_ID }),
    );
    expect(new URL(choice.redirectUrl).searchParams.get('request_uri')).toMatch(/^urn:/);
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('AUTHORIZING');
  });

  test('API_ONLY with obie and no bankId: 400 VALIDATION_FAILED naming bankId, nothing stored', async () => {
    const before = await orm.em.fork().count(Payment, {});
    const error = expectFailure(await createPayment(app, headers, paymentBody({ provider: 'obie' })), 400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(error.details)).toContain('bankId');
    expect(await orm.em.fork().count(Payment, {})).toBe(before);
  });

  test('providers and banks list obie once approved, with providerSupport and recommendedProvider', async () => {
    const providers = expectSuccess<{ providers: { id: string }[] }>(
      await app.inject({ method: 'GET', url: '/api/payments/providers', headers }),
    );
    expect(providers.providers.map((provider) => provider.id)).toEqual(['mock', 'obie']);
    const bankProviders = expectSuccess<{ providers: string[] }>(
      await app.inject({ method: 'GET', url: '/api/banks/providers', headers }),
    );
    expect(bankProviders.providers).toEqual(['mock', 'obie']);
    const banks = expectSuccess<{ banks: Record<string, unknown>[] }>(
      await app.inject({ method: 'GET', url: '/api/banks?provider=obie', headers }),
    );
    expect(banks.banks).toEqual([
      expect.objectContaining({
        id: BANK_ID,
        providerSupport: [{ provider: 'obie', supportedPaymentMethods: ['FASTER_PAYMENTS'] }],
        recommendedProvider: 'obie',
      }),
    ]);
    const notApprovedBanks = expectSuccess<{ banks: unknown[] }>(
      await app.inject({ method: 'GET', url: '/api/banks?provider=obie', headers: notApproved.headers }),
    );
    expect(notApprovedBanks.banks).toEqual([]);
  });
});

describe('lost answers are found again by idempotency key', () => {
  test('a start repeated for the same payment gets the same consent at the bank, not a second one', async () => {
    const payment = await obiePayment();
    const first = await orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    const { record } = await loadPayment(orm.em, { paymentId: payment.paymentId });
    // As the reconcile job or a retried bank choice would: the same payment started again.
    const obie = createObieProvider(CONNECTIONS, orm, silentLogger());
    try {
      await obie.startPayment(record, new Date());
    } finally {
      await obie.close();
    }
    const again = await orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    expect(again.consentId).toBe(first.consentId);
    // A fresh authorization request (state) for the same consent: the old one is void.
    expect(again.state).not.toBe(first.state);
  });
});

describe('obie approved but no connection configured', () => {
  test('503 PROVIDER_NOT_CONFIGURED, nothing stored', async () => {
    const bare = await createTestApp();
    const approved = await bare.factories.createMerchant();
    await bare.factories.approveProvider(approved.organizationId, 'obie');
    const error = expectFailure(
      await createPayment(bare.app, approved.headers, paymentBody({ provider: 'obie', bankId: BANK_ID })),
      503,
    );
    expect(error.code).toBe('PROVIDER_NOT_CONFIGURED');
    expect(await bare.orm.em.fork().count(Payment, {})).toBe(0);
  });
});
