import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startTestBank, until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerDecides, tppFor } from '../../../sandbox-bank/test/support/xs2a.ts';
import { Payment } from '../../src/db/entities/index.ts';
import type { PaymentScheduler } from '../../src/payments/payment-scheduler.ts';
import { pollProviderPayment } from '../../src/payments/poll-provider.ts';
import { defaultProviderRegistry } from '../../src/providers/default-providers.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import {
  created,
  createPayment,
  domainDeps,
  HOUR,
  type PaymentData,
  post,
  readPayment,
  tokenOf,
  trpcData,
  trpcQuery,
} from '../payments/payment-fixtures.ts';

/**
 * The `nextgenpsd2` provider through the service, on the seam every provider shares: the
 * merchant's API (providers, banks, create rules), our link and the bank's return at
 * /providers/nextgenpsd2/..., and what the bank says applied through the one pipeline. The
 * customer decides at Sandbox Bank EU's pages without a browser (e2e/tests/nextgenpsd2-flows
 * does it in Chromium).
 */
const PUBLIC_BASE_URL = 'http://localhost:3000';
const BANK_ID = 'sandbox-bank-eu';

const bankDatabase = await createTestDatabase();
const bank = await startTestBank({ databaseUrl: bankDatabase.url, stepMs: 200 });
const polls: { paymentId: string; attempt: number }[] = [];
const scheduler: PaymentScheduler = {
  paymentDue: async () => {},
  providerClaimDue: async () => {},
  providerPollDue: async (paymentId, attempt) => {
    polls.push({ paymentId, attempt });
  },
};
const { app, factories, orm, clock, config } = await createTestApp({
  scheduler,
  config: {
    publicBaseUrl: PUBLIC_BASE_URL,
    nextgenpsd2Connections: [
      { bankId: BANK_ID, name: 'Sandbox Bank EU', clientFile: path.join(bank.dataDir, 'xs2a-client.json') },
    ],
  },
});
const tpp = tppFor({ ...bank.xs2a.clientConfig.transport, baseUrl: bank.xs2a.baseUrl });
afterAll(async () => {
  await tpp.close();
  await bank.stop();
  await bankDatabase.drop();
});

const merchant = await factories.createMerchant();
await factories.approveProvider(merchant.organizationId, 'nextgenpsd2');
const { headers } = merchant;

const euro = (overrides: Record<string, unknown> = {}) => ({
  toAccount: { accountName: 'Berlin Shop GmbH', iban: 'DE89 3704 0044 0532 0130 00' },
  amount: { value: '12.50', currency: 'EUR' },
  reference: 'Order 4711',
  provider: 'nextgenpsd2',
  bankId: BANK_ID,
  redirectUrl: 'https://shop.example/return',
  ...overrides,
});

const sync = (paymentId: string, as = headers) => post(app, as, `/api/payments/${paymentId}/sync`);
const storedCount = () => orm.em.fork().count(Payment, { organization: merchant.organizationId });

/** Our link -> 303 to the bank's page -> the customer decides -> back at our callback. */
async function customerAtBank(
  payment: { redirectUrl?: string | null },
  decision: 'approve' | 'reject',
  account?: string,
) {
  const link = new URL(payment.redirectUrl ?? '');
  expect(link.pathname).toMatch(/^\/providers\/nextgenpsd2\/authorize\/[^/]+$/);
  const opened = await app.inject({ method: 'GET', url: link.pathname });
  expect(opened.statusCode, opened.body).toBe(303);
  const scaRedirect = String(opened.headers.location);
  const back = new URL(
    await customerDecides(scaRedirect, { action: decision, ...(account ? { account } : {}) }),
  );
  expect(back.pathname).toBe('/providers/nextgenpsd2/callback');
  return app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

const finished = (paymentId: string, as = headers) =>
  until(async () => {
    await sync(paymentId, as);
    const read = await readPayment(app, as, paymentId);
    return ['COMPLETED', 'FAILED'].includes(read.status) ? read : undefined;
  });

/** The payment's status at the bank, read as our TPP. */
async function statusAtBank(paymentId: string): Promise<string> {
  const [row] = await orm.em
    .getConnection()
    .execute<{ bankPaymentId: string; product: string }[]>(
      `select bank_payment_id as "bankPaymentId", product from nextgenpsd2_payment where payment_id = ?`,
      [paymentId],
    );
  const answer = await tpp.call('GET', `/v1/payments/${row?.product}/${row?.bankPaymentId}/status`, {
    schema: 'paymentInitiationStatusResponse-200_json',
  });
  return (answer.body as { transactionStatus: string }).transactionStatus;
}

/** One poll of the worker's, as its job runs it. */
async function pollOnce(paymentId: string, attempt: number): Promise<void> {
  const providers = await defaultProviderRegistry(config, orm);
  try {
    await pollProviderPayment(domainDeps(orm, clock, config, { providers, scheduler }), paymentId, attempt);
  } finally {
    for (const code of providers.codes()) await providers.get(code)?.close?.();
  }
}

describe('nextgenpsd2 through the service', () => {
  test('an approved organization sees the provider and Sandbox Bank EU (DE)', async () => {
    const providers = expectSuccess<{ providers: { id: string; name: string }[] }>(
      await app.inject({ method: 'GET', url: '/api/payments/providers', headers }),
    );
    expect(providers.providers).toContainEqual(
      expect.objectContaining({ id: 'nextgenpsd2', name: 'Berlin Group NextGenPSD2' }),
    );
    const banks = expectSuccess<{ banks: { id: string; country: string }[] }>(
      await app.inject({ method: 'GET', url: '/api/banks?provider=nextgenpsd2', headers }),
    );
    expect(banks.banks.map((b) => [b.id, b.country])).toEqual([[BANK_ID, 'DE']]);
  });

  test.each([
    ['a currency the bank cannot take', { amount: { value: '12.50', currency: 'GBP' } }, 'amount.currency'],
    [
      'a sort code',
      { toAccount: { accountName: 'UK Shop', sortCode: '04-00-04', accountNumber: '12345678' } },
      'toAccount.sortCode',
    ],
    ['more than 2 decimals', { amount: { value: '12.345', currency: 'EUR' } }, 'amount.value'],
    ['API_ONLY without a bank', { bankId: undefined }, 'bankId'],
  ])(
    '%s: 400 VALIDATION_FAILED naming the field, nothing stored or sent',
    async (_label, overrides, field) => {
      const before = await storedCount();
      const refused = await createPayment(app, headers, euro(overrides));
      const error = expectFailure(refused, 400);
      expect(error.code).toBe('VALIDATION_FAILED');
      expect(error.details?.map((detail) => detail.field)).toContain(field);
      expect(await storedCount()).toBe(before);
    },
  );

  test('API_ONLY approved at the bank: back to the shop, then COMPLETED / ACSC with the bank’s statuses kept', async () => {
    const payment = await created(app, headers, euro());
    expect(payment).toMatchObject({ status: 'AUTHORIZING', provider: 'nextgenpsd2', bankId: BANK_ID });
    const back = await customerAtBank(payment, 'approve');
    expect(back.statusCode, back.body).toBe(200);
    expect(back.body).toContain('https://shop.example/return?paymentId=');
    const done = (await finished(payment.paymentId)) as PaymentData;
    expect(done).toMatchObject({ status: 'COMPLETED', isoStatus: { code: 'ACSC' } });
    const stored = await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId });
    expect(stored.providerStatus).toMatchObject({ transaction: 'ACSC' });
  });

  test('HOSTED_PAGES: the bank picker opens where the provider reaches a bank (DE), offering only there', async () => {
    const payment = await created(app, headers, euro({ flowType: 'HOSTED_PAGES', bankId: undefined }));
    const session = trpcData<{ countries: string[]; defaultCountry: string }>(
      await trpcQuery(app, 'pages.hostedSession', { token: tokenOf(payment.redirectUrl) }),
    );
    expect(session).toMatchObject({ countries: ['DE'], defaultCountry: 'DE' });
  });

  test("HOSTED_PAGES: the bank is told the customer's address; API_ONLY: ours", async () => {
    const hosted = await created(app, headers, euro({ flowType: 'HOSTED_PAGES', bankId: undefined }));
    const chosen = await app.inject({
      method: 'POST',
      url: '/trpc/pages.chooseBank',
      payload: { token: tokenOf(hosted.redirectUrl), bankId: BANK_ID },
      remoteAddress: '81.2.69.161',
      // Without TRUST_PROXY a client's own X-Forwarded-For is not believed.
      headers: { 'x-forwarded-for': '8.8.8.8' },
    });
    expect(chosen.statusCode, chosen.body).toBe(200);
    const apiOnly = await created(app, headers, euro());
    const told = await bank.database.pool.query<{ psu_ip_address: string }>(
      `select psu_ip_address from xs2a_payments order by created_at desc limit 2`,
    );
    expect(told.rows.map((row) => row.psu_ip_address)).toEqual(['127.0.0.1', '81.2.69.161']);
    expect(apiOnly.status).toBe('AUTHORIZING');
  });

  test('rejected at the bank: FAILED / RJCT / CUST', async () => {
    const payment = await created(app, headers, euro());
    expect((await customerAtBank(payment, 'reject')).statusCode).toBe(200);
    const done = (await finished(payment.paymentId)) as PaymentData;
    expect(done).toMatchObject({ status: 'FAILED', isoStatus: { code: 'RJCT', reason: { code: 'CUST' } } });
  });

  test('more than the €50 account holds: FAILED / RJCT / AM04', async () => {
    const payment = await created(app, headers, euro({ amount: { value: '75.00', currency: 'EUR' } }));
    expect((await customerAtBank(payment, 'approve', 'eu-pocket')).statusCode).toBe(200);
    const done = (await finished(payment.paymentId)) as PaymentData;
    expect(done).toMatchObject({ status: 'FAILED', isoStatus: { code: 'RJCT', reason: { code: 'AM04' } } });
  });

  test('the return used again, or at another provider’s route, changes nothing', async () => {
    const payment = await created(app, headers, euro());
    const link = new URL(payment.redirectUrl ?? '');
    const opened = await app.inject({ method: 'GET', url: link.pathname });
    const back = new URL(await customerDecides(String(opened.headers.location), { action: 'approve' }));
    expect((await app.inject({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(200);
    // A HEAD of the return (a link checker) does nothing, and uses nothing up.
    const head = await app.inject({ method: 'HEAD', url: `${back.pathname}${back.search}` });
    expect(head.statusCode).toBe(200);
    const replay = await app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    expect(replay.statusCode).toBe(400);
    expect(replay.body).toContain('This link cannot be used');
    // Our link of a nextgenpsd2 payment at obie's route is as good as a forged one.
    const elsewhere = await app.inject({
      method: 'GET',
      url: link.pathname.replace('/providers/nextgenpsd2/', '/providers/obie/'),
    });
    expect(elsewhere.statusCode).toBe(400);
    await finished(payment.paymentId);
  });

  test('cancelled while the customer has not approved: CANCELLED here, and the bank told', async () => {
    const payment = await created(app, headers, euro());
    const cancelled = await post(app, headers, `/api/payments/${payment.paymentId}/cancel`);
    expect(expectSuccess<PaymentData>(cancelled).status).toBe('CANCELLED');
    const link = new URL(payment.redirectUrl ?? '');
    const opened = await app.inject({ method: 'GET', url: link.pathname });
    expect(opened.statusCode).toBe(409);
    expect(opened.body).toContain('This payment is cancelled');
  });

  test("a suspended merchant's payment still awaiting its customer at the bank is withdrawn by the next poll", async () => {
    const suspended = await factories.createMerchant();
    await factories.approveProvider(suspended.organizationId, 'nextgenpsd2');
    const waiting = await created(app, suspended.headers, euro());
    const approved = await created(app, suspended.headers, euro());
    expect((await customerAtBank(approved, 'approve')).statusCode).toBe(200);
    await factories.setActive(suspended.organizationId, false);
    // Our link now refuses its customers, but the bank's page does not ask us.
    expect(await statusAtBank(waiting.paymentId)).toBe('RCVD');

    await pollOnce(waiting.paymentId, 3);
    expect(await statusAtBank(waiting.paymentId)).toBe('CANC');
    // Approved before the suspension: the bank executes it, and its status decides.
    await pollOnce(approved.paymentId, 3);

    // Read once the operator lets the merchant back in (a suspended key reads nothing): the
    // withdrawn payment stays CANCELLED.
    await factories.setActive(suspended.organizationId, true);
    const read = await readPayment(app, suspended.headers, waiting.paymentId);
    expect(read).toMatchObject({
      status: 'CANCELLED',
      isoStatus: { code: 'CANC', reason: { code: 'CUST' } },
    });
    expect(read.statusHistory.at(-1)?.details).toBe('Cancelled: the merchant’s account is suspended');
    expect((await finished(approved.paymentId, suspended.headers)).status).toBe('COMPLETED');
  });

  // Last: it moves the file's clock a day ahead.
  test('polled from its start (the bank has no push), and our 24 h expiry told to the bank', async () => {
    const payment = await created(app, headers, euro());
    // The customer never comes back through our callback: the service polls by itself anyway.
    expect(polls).toContainEqual({ paymentId: payment.paymentId, attempt: 1 });
    expect(await statusAtBank(payment.paymentId)).toBe('RCVD');
    clock.advance(24 * HOUR + 1_000);
    // Not on the clock alone: the bank must cancel it first, or the customer could still approve there.
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('AUTHORIZING');
    await pollOnce(payment.paymentId, 40);
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('EXPIRED');
    expect(await statusAtBank(payment.paymentId)).toBe('CANC');
  });
});
