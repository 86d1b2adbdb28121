import { AppError, CreatePaymentInput } from '@pis/shared';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import {
  ObieAuthorization,
  ObieAuthorizationRequest,
  Payment,
  ProviderClaim,
} from '../../src/db/entities/index.ts';
import { silentLogger } from '../../src/logger.ts';
import { createPayment as createPaymentDirectly } from '../../src/payments/create-payment.ts';
import { dashboardPayment } from '../../src/payments/dashboard-payment.ts';
import { loadPayment } from '../../src/payments/load-payment.ts';
import { POLL_MAX_MS, pollDelayMs, pollProviderPayment } from '../../src/payments/poll-provider.ts';
import { RECONCILE_CLAIM_AFTER_MS, reconcileProviderClaims } from '../../src/payments/provider-claims.ts';
import { syncPayment } from '../../src/payments/read-payment.ts';
import { connectObie } from '../../src/providers/obie/obie-connection.ts';
import { createObieProvider } from '../../src/providers/obie/obie-provider.ts';
import { ProviderOutcomeUnknownError } from '../../src/providers/payment-provider.ts';
import { createProviderRegistry } from '../../src/providers/provider-registry.ts';
import { expectFailure, expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
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
import {
  BANK_ID,
  CALLBACK,
  obieWithSandboxBank,
  openObieLink,
  bankFaults as switchFaults,
} from './obie-test-setup.ts';

/**
 * The `obie` provider against the real sandbox bank (its own database, free ports, fresh keys),
 * the customer at the bank's pages without a browser (sandbox-bank/test/support/customer.ts),
 * back through our callback.
 */
const {
  bank,
  connections: CONNECTIONS,
  polls,
  app,
  factories,
  orm,
  clock,
  config,
  pollRecorder,
  bankDatabase,
} = await obieWithSandboxBank({
  stepMs: 200,
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

/** What the bank itself holds for one of our payments (its own database). */
const bankDb = new pg.Pool({
  connectionString: bankDatabase.url,
  max: 2,
  options: '-c search_path=sandbox_bank',
});
afterAll(() => bankDb.end());
const consentsAtBank = async (paymentId: string) =>
  (
    await bankDb.query<{ id: string }>(
      `select id from consents where data->'Initiation'->>'InstructionIdentification' = $1`,
      [paymentId.slice(0, 35)],
    )
  ).rows;
const paymentsAtBank = async (consentId: string) =>
  (await bankDb.query<{ id: string }>('select id from payments where consent_id = $1', [consentId])).rows;

const bankFaults = (faults: Parameters<typeof switchFaults>[1]) => switchFaults(bank.dataDir, faults);

describe('obie through the sandbox bank', () => {
  test('API_ONLY: consent, authorization at the bank, callback, payment, statuses to COMPLETED', async () => {
    const payment = await obiePayment();
    expect(payment).toMatchObject({ status: 'AUTHORIZING', provider: 'obie', bankId: BANK_ID });
    // Our link (signed, at our origin); opening it asks the bank for its page (PAR).
    expect(payment.redirectUrl).toMatch(/^http:\/\/localhost:3000\/providers\/obie\/authorize\//);
    const authorizationUrl = await openObieLink(app, payment.redirectUrl);

    const redirect = await customerAt(authorizationUrl, CALLBACK, { action: 'approve' });
    const back = await backAtCallback(redirect);
    expect(back.statusCode).toBe(200);
    const merchantReturn = onward(back);
    expect(merchantReturn.origin).toBe('https://shop.example');
    expect(merchantReturn.searchParams.get('paymentId')).toBe(payment.paymentId);
    expect(['SUBMITTED', 'ACCEPTED', 'COMPLETED']).toContain(merchantReturn.searchParams.get('status'));

    const stored = await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId });
    expect(stored.providerStatus?.consent).toBe('COND');
    expect(stored.providerStatus?.payment).toBeDefined();

    const done = await until(async () => {
      await sync(payment.paymentId);
      const read = await readPayment(app, headers, payment.paymentId);
      return read.status === 'COMPLETED' ? read : undefined;
    });
    expect(done.isoStatus.code).toBe('ACSC');
    expect(statuses(done)).toEqual(['PENDING', 'AUTHORIZING', ...statuses(done).slice(2)]);
    expect(statuses(done).at(-1)).toBe('COMPLETED');
    const final = await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId });
    expect(final.providerStatus?.payment).toBe('ACSC');
    // The dashboard's payment page shows the bank's own statuses beside ours (a finished payment:
    // nothing to ask a provider).
    const view = await dashboardPayment(
      {
        em: orm.em,
        clock,
        config,
        providers: createProviderRegistry([]),
        scheduler: pollRecorder,
        logger: silentLogger(),
      },
      { organizationId: merchant.organizationId, approvedProviders: ['mock', 'obie'] },
      payment.paymentId,
    );
    expect(view.atBank).toEqual({ consent: 'COND', payment: 'ACSC' });
    expect(view.payment).toMatchObject({ provider: 'obie', bankId: BANK_ID });
  });

  test('the customer rejects at the bank: FAILED / RJCT / CUST', async () => {
    const payment = await obiePayment();
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
      action: 'reject',
    });
    const back = await backAtCallback(redirect);
    expect(back.statusCode).toBe(200);
    expect(onward(back).searchParams.get('status')).toBe('FAILED');
    const read = await readPayment(app, headers, payment.paymentId);
    expect(read).toMatchObject({ status: 'FAILED', isoStatus: { code: 'RJCT', reason: { code: 'CUST' } } });
  });

  test('more than the balance: FAILED / RJCT / AM04 with the reason as error', async () => {
    const payment = await obiePayment({ amount: { value: '300.00', currency: 'GBP' } });
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
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
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
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
    const redirect = await customerAt(await openObieLink(app, choice.redirectUrl), CALLBACK, {
      action: 'approve',
    });
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
    await openObieLink(app, choice.redirectUrl);
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
    await openObieLink(app, payment.redirectUrl);
    const first = await orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    const requests = () => orm.em.fork().count(ObieAuthorizationRequest, { paymentId: payment.paymentId });
    expect(await requests()).toBe(1);
    const { record } = await loadPayment(orm.em, { paymentId: payment.paymentId });
    // As the reconcile job or a retried bank choice would: the same payment started again.
    const obie = createObieProvider(CONNECTIONS, config, orm, silentLogger());
    try {
      await obie.startPayment(record, new Date());
    } finally {
      await obie.close();
    }
    const again = await orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    expect(again.consentId).toBe(first.consentId);
    // The customer's request made before is void: the next open of the link makes a new one.
    expect(await requests()).toBe(0);
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

describe('an API_ONLY create stores the payment before the bank hears of it', () => {
  const claims = () => orm.em.fork().count(ProviderClaim, {});
  const paymentsOf = () => orm.em.fork().count(Payment, { organization: merchant.organizationId });
  /** The merchant's payments stored since `known` (the test clock stands still: no order by time). */
  const idsOf = async () =>
    (await orm.em.fork().find(Payment, { organization: merchant.organizationId })).map((p) => p.id);
  const newPayments = async (known: string[]) =>
    (await orm.em.fork().find(Payment, { organization: merchant.organizationId })).filter(
      (p) => !known.includes(p.id),
    );

  test('while the bank is asked, the payment is already stored PENDING under a start claim', async () => {
    await bankFaults({ slowMs: 1_500 });
    try {
      const known = await idsOf();
      const creating = obiePayment();
      const seen = await until(async () => {
        const [stored] = await newPayments(known);
        return stored && (await claims()) > 0 ? stored : undefined;
      }, 10_000);
      expect(seen?.status).toBe('PENDING');
      const payment = await creating;
      expect(payment).toMatchObject({ paymentId: seen?.id, status: 'AUTHORIZING', bankId: BANK_ID });
      expect(await claims()).toBe(0);
      expect(await consentsAtBank(payment.paymentId)).toHaveLength(1);
    } finally {
      await bankFaults({});
    }
  });

  test('a bank that refuses: 502, and no payment, history or claim is left behind', async () => {
    await bankFaults({ outage: true });
    try {
      const before = await paymentsOf();
      const history = await orm.em.getConnection().execute('select count(*)::int as n from payment_history');
      const failed = expectFailure(
        await createPayment(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID })),
        502,
      );
      expect(failed.code).toBe('PROVIDER_UNAVAILABLE');
      expect(await paymentsOf()).toBe(before);
      expect(await claims()).toBe(0);
      expect(await orm.em.getConnection().execute('select count(*)::int as n from payment_history')).toEqual(
        history,
      );
    } finally {
      await bankFaults({});
    }
  });

  test('an answer lost after the bank made the consent: the payment stays, the reconcile job finds the consent', async () => {
    // The bank acts, but its answer never reaches us (a timeout after sending, a dropped connection).
    const real = createObieProvider(CONNECTIONS, config, orm, silentLogger());
    const lossy = {
      ...real,
      startPayment: async (...args: Parameters<typeof real.startPayment>) => {
        await real.startPayment(...args);
        throw new ProviderOutcomeUnknownError('answer lost');
      },
    };
    const caller = { organizationId: merchant.organizationId, approvedProviders: ['mock', 'obie'] };
    const deps = {
      em: orm.em,
      clock,
      config,
      providers: createProviderRegistry([lossy]),
      scheduler: pollRecorder,
      logger: silentLogger(),
    };
    const command = CreatePaymentInput.parse(paymentBody({ provider: 'obie', bankId: BANK_ID }));
    try {
      const known = await idsOf();
      const lost = await createPaymentDirectly(deps, caller, command, 'lost-answer-1').catch((e) => e);
      expect(lost).toBeInstanceOf(AppError);
      expect((lost as AppError).code).toBe('PROVIDER_UNAVAILABLE');
      // The payment exists (PENDING, claimed) for the consent the bank made.
      const [stored, ...others] = await newPayments(known);
      expect(others).toEqual([]);
      const paymentId = stored?.id as string;
      expect(stored?.status).toBe('PENDING');
      expect(await orm.em.fork().count(ProviderClaim, { payment: paymentId })).toBe(1);
      expect(await consentsAtBank(paymentId)).toHaveLength(1);
      // A retry with the same key meanwhile starts nothing: the outcome is still being found.
      const retry = await createPaymentDirectly(deps, caller, command, 'lost-answer-1').catch((e) => e);
      expect((retry as AppError).code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');

      clock.advance(RECONCILE_CLAIM_AFTER_MS + 1_000);
      const reconciled = await reconcileProviderClaims({
        ...deps,
        providers: createProviderRegistry([real]),
      });
      expect(reconciled).toMatchObject({ settled: 1, open: 0 });
      const after = await orm.em.fork().findOneOrFail(Payment, { id: paymentId });
      expect(after.status).toBe('AUTHORIZING');
      expect(await orm.em.fork().count(ProviderClaim, { payment: paymentId })).toBe(0);
      expect(await consentsAtBank(paymentId)).toHaveLength(1);
    } finally {
      await real.close();
    }
  });
});

describe('concurrency and lost answers at the bank', () => {
  test('two concurrent bank choices on a hosted page make one consent at the bank', async () => {
    const payment = await obiePayment({ flowType: 'HOSTED_PAGES', bankId: undefined });
    const token = tokenOf(payment.redirectUrl);
    const answers = await Promise.all([
      trpcMutation(app, 'pages.chooseBank', { token, bankId: BANK_ID }),
      trpcMutation(app, 'pages.chooseBank', { token, bankId: BANK_ID }),
    ]);
    const codes = answers.map((answer) => answer.statusCode).sort();
    expect(codes).toEqual([200, 409]);
    const refused = answers.find((answer) => answer.statusCode === 409);
    expect(JSON.stringify(refused?.json())).toMatch(/PROVIDER_CALL_IN_PROGRESS|PAYMENT_ALREADY_DECIDED/);
    expect(await consentsAtBank(payment.paymentId)).toHaveLength(1);
    expect((await readPayment(app, headers, payment.paymentId)).status).toBe('AUTHORIZING');
  });

  test('a payment submission whose answer is lost is asked again by idempotency key: one payment at the bank', async () => {
    const payment = await obiePayment();
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
      action: 'approve',
    });
    // Our callback through an adapter whose first submission answer is lost on the way back.
    const submitted: string[] = [];
    let lose = true;
    const lossyConnect: typeof connectObie = async (client) => {
      const connection = await connectObie(client);
      return {
        ...connection,
        api: async (...args: Parameters<typeof connection.api>) => {
          const answer = await connection.api(...args);
          if (args[0] === 'POST' && args[1] === '/domestic-payments') {
            submitted.push(String(answer.body.Data?.DomesticPaymentId));
            if (lose) {
              lose = false;
              throw new ProviderOutcomeUnknownError('answer lost');
            }
          }
          return answer;
        },
      };
    };
    const lossy = createObieProvider(CONNECTIONS, config, orm, silentLogger(), lossyConnect);
    try {
      const outcome = await lossy.completeAuthorization(new URL(redirect), clock.now());
      if (outcome.kind !== 'granted') throw new Error(`expected the customer's grant, got ${outcome.kind}`);
      const { record } = await loadPayment(orm.em, { paymentId: payment.paymentId });
      await lossy.submit(record, outcome.grant, clock.now());
    } finally {
      await lossy.close();
    }
    expect(submitted).toHaveLength(2);
    expect(submitted[1]).toBe(submitted[0]);
    const authorization = await orm.em
      .fork()
      .findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    expect(authorization.bankPaymentId).toBe(submitted[0]);
    expect(await paymentsAtBank(authorization.consentId)).toEqual([{ id: submitted[0] }]);
    await until(async () => {
      await sync(payment.paymentId);
      return (await readPayment(app, headers, payment.paymentId)).status === 'COMPLETED';
    });
  });
});

describe("the customer's address (x-fapi-customer-ip-address)", () => {
  test('told with the consent and the submit when the customer is there and public, never with a private one', async () => {
    const told: { method: string; path: string; customerAddress: string | undefined }[] = [];
    const recording: typeof connectObie = async (client) => {
      const connection = await connectObie(client);
      return {
        ...connection,
        api: (...args: Parameters<typeof connection.api>) => {
          told.push({ method: args[0], path: args[1], customerAddress: args[2].customerAddress });
          return connection.api(...args);
        },
      };
    };
    const provider = createObieProvider(CONNECTIONS, config, orm, silentLogger(), recording);
    try {
      const payment = await obiePayment();
      const { record } = await loadPayment(orm.em, { paymentId: payment.paymentId });
      // A start repeated for the same payment finds the same consent (its idempotency key).
      await provider.startPayment(record, clock.now(), { customerAddress: '::ffff:81.2.69.160' });
      await provider.startPayment(record, clock.now(), { customerAddress: '10.0.0.7' });
      await provider.startPayment(record, clock.now());
      expect(told.map(({ path, customerAddress }) => [path, customerAddress])).toEqual([
        ['/domestic-payment-consents', '81.2.69.160'],
        ['/domestic-payment-consents', undefined],
        ['/domestic-payment-consents', undefined],
      ]);

      const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
        action: 'approve',
      });
      const outcome = await provider.completeAuthorization(new URL(redirect), clock.now());
      if (outcome.kind !== 'granted') throw new Error(`expected the customer's grant, got ${outcome.kind}`);
      told.length = 0;
      await provider.submit(record, outcome.grant, clock.now(), {
        customerAddress: '2a00:1450:4001:81b::200e',
      });
      expect(told).toEqual([
        { method: 'POST', path: '/domestic-payments', customerAddress: '2a00:1450:4001:81b::200e' },
      ]);
      // The poller's reads are ours alone: the customer is not there.
      told.length = 0;
      await provider.readStatus(record, clock.now());
      expect(told.length).toBeGreaterThan(0);
      expect(
        told.every(({ method, customerAddress }) => method === 'GET' && customerAddress === undefined),
      ).toBe(true);
    } finally {
      await provider.close();
    }
  });
});

describe('a bank that throttles (429)', () => {
  test('sync says so (502 PROVIDER_UNAVAILABLE), GET keeps the last known status, a create stores nothing', async () => {
    const payment = await obiePayment();
    await bankFaults({ throttleSeconds: 5 });
    try {
      const count = await orm.em.fork().count(Payment, {});
      const refused = expectFailure(await sync(payment.paymentId), 502);
      expect(refused.code).toBe('PROVIDER_UNAVAILABLE');
      const read = await readPayment(app, headers, payment.paymentId);
      expect(read.status).toBe('AUTHORIZING');
      expect(
        expectFailure(
          await createPayment(app, headers, paymentBody({ provider: 'obie', bankId: BANK_ID })),
          502,
        ).code,
      ).toBe('PROVIDER_UNAVAILABLE');
      expect(await orm.em.fork().count(Payment, {})).toBe(count);
    } finally {
      await bankFaults({});
    }
    expect(expectSuccess<{ status: string }>(await sync(payment.paymentId)).status).toBe('AUTHORIZING');
  });
});

describe('statuses out of order', () => {
  test('a bank answer older than what we know (RCVD after ACSP) never moves the payment back', async () => {
    const payment = await obiePayment();
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
      action: 'approve',
    });
    expect((await backAtCallback(redirect)).statusCode).toBe(200);
    const { bankPaymentId } = await orm.em
      .fork()
      .findOneOrFail(ObieAuthorization, { paymentId: payment.paymentId });
    // The bank itself is done; we have not read it since the callback.
    await until(async () => {
      const { rows } = await bankDb.query<{ status: string }>('select status from payments where id = $1', [
        bankPaymentId,
      ]);
      return rows[0]?.status === 'ACSC';
    });
    /** Our sync through an adapter whose bank answers `status` (a lagging replica, a cache). */
    const syncSeeing = async (status: string) => {
      const lagging: typeof connectObie = async (client) => {
        const connection = await connectObie(client);
        return {
          ...connection,
          api: async (...args: Parameters<typeof connection.api>) => {
            const answer = await connection.api(...args);
            if (args[0] !== 'GET' || !args[1].startsWith('/domestic-payments/')) return answer;
            return { ...answer, body: { ...answer.body, Data: { ...answer.body.Data, Status: status } } };
          },
        };
      };
      const obie = createObieProvider(CONNECTIONS, config, orm, silentLogger(), lagging);
      try {
        const deps = {
          em: orm.em,
          clock,
          config,
          providers: createProviderRegistry([obie]),
          scheduler: pollRecorder,
          logger: silentLogger(),
        };
        const caller = { organizationId: merchant.organizationId, approvedProviders: ['mock', 'obie'] };
        return await syncPayment(deps, caller, payment.paymentId);
      } finally {
        await obie.close();
      }
    };
    const accepted = await syncSeeing('ACSP');
    expect(accepted.status).toBe('ACCEPTED');
    for (const stale of ['RCVD', 'ACCP', 'ACFC']) {
      const again = await syncSeeing(stale);
      expect(again.status, stale).toBe('ACCEPTED');
      expect(again.statusHistory, stale).toEqual(accepted.statusHistory);
    }
    expect((await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId })).status).toBe('ACCEPTED');
    // The real answer moves it on.
    expect(expectSuccess<{ status: string }>(await sync(payment.paymentId)).status).toBe('COMPLETED');
  });
});

describe('polling starts at our callback, backs off, stops when finished', () => {
  test('the delays: seconds first, then minutes, never more than five', () => {
    const delays = Array.from({ length: 12 }, (_, index) => pollDelayMs(index + 1) / 1000);
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
    expect(POLL_MAX_MS).toBe(5 * 60_000);
  });

  test('nothing is polled from creation; the customer back at our callback starts it; a finished payment stops it', async () => {
    const payment = await obiePayment();
    const ofPayment = () => polls.filter((poll) => poll.paymentId === payment.paymentId);
    expect(ofPayment()).toEqual([]);
    const redirect = await customerAt(await openObieLink(app, payment.redirectUrl), CALLBACK, {
      action: 'approve',
    });
    expect((await backAtCallback(redirect)).statusCode).toBe(200);
    expect(ofPayment()).toEqual([{ paymentId: payment.paymentId, attempt: 1, delayMs: 1_000 }]);

    // The worker's polls, one after the other, until the bank says it is done.
    const deps = {
      em: orm.em,
      clock,
      config,
      providers: createProviderRegistry([createObieProvider(CONNECTIONS, config, orm, silentLogger())]),
      scheduler: pollRecorder,
      logger: silentLogger(),
    };
    try {
      await until(async () => {
        const last = ofPayment().at(-1);
        if (!last) return false;
        const count = ofPayment().length;
        await pollProviderPayment(deps, payment.paymentId, last.attempt);
        const stored = await orm.em.fork().findOneOrFail(Payment, { id: payment.paymentId });
        if (stored.status === 'COMPLETED') return ofPayment().length === count;
        expect(ofPayment().at(-1)).toMatchObject({
          attempt: last.attempt + 1,
          delayMs: pollDelayMs(last.attempt + 1),
        });
        await new Promise((resolve) => setTimeout(resolve, 150));
        return false;
      }, 15_000);
    } finally {
      await (deps.providers.get('obie') as ReturnType<typeof createObieProvider>).close();
    }
    // Finished: a poll that still comes finds it done and asks for no other.
    const count = ofPayment().length;
    await pollProviderPayment(deps, payment.paymentId, 99);
    expect(ofPayment()).toHaveLength(count);
  });
});
