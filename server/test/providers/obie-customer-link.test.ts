import { describe, expect, test } from 'vitest';
import { until } from '../../../sandbox-bank/test/support/bank.ts';
import { customerAt } from '../../../sandbox-bank/test/support/customer.ts';
import { ObieAuthorization, ObieAuthorizationRequest, Payment } from '../../src/db/entities/index.ts';
import { providerCallDuration, providerReadsCapped } from '../../src/observability/metrics.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { withinOneWindow } from '../helpers/rate-limit-window.ts';
import { testConfig } from '../helpers/test-config.ts';
import { post, readPayment, tokenOf, trpcData, trpcMutation } from '../payments/payment-fixtures.ts';
import {
  BANK_ID,
  bankDatabaseOf,
  CALLBACK,
  obieMerchant,
  obieWithSandboxBank,
  openObieLink,
  bankFaults as switchFaults,
} from './obie-test-setup.ts';

/**
 * The `obie` customer link is ours (/providers/obie/authorize/<token>, signed, 30 minutes), not
 * the bank's PAR URL, which the bank keeps for 60 s: opening it makes the PAR request then. The
 * real sandbox bank; "the bank's 60 s have passed" is its PAR rows aged in its own database (its
 * clock is the real one), our time moves with the test clock.
 */
// Rate limits on (the defaults): the link is limited per client address like every customer page.
const { bank, bankDatabase, app, factories, orm, clock } = await obieWithSandboxBank({
  stepMs: 200,
  config: { rateLimits: { ...testConfig().rateLimits, enabled: true } },
});
const { headers, obiePayment } = await obieMerchant({ app, factories });
const { pool: bankDb, liveParRequests } = bankDatabaseOf(bankDatabase.url);

/** The bank's PAR lifetime (60 s) is over for every request it holds. */
const parLifetimePasses = () =>
  bankDb.query(
    `update oidc_payloads set expires_at = now() - interval '1 second' where type = 'PushedAuthorizationRequest'`,
  );

const authorizationOf = (paymentId: string) => orm.em.fork().findOneOrFail(ObieAuthorization, { paymentId });

/** The authorization requests (states) made for a payment, one per open of its link. */
const requestsOf = async (paymentId: string) =>
  (await orm.em.fork().find(ObieAuthorizationRequest, { paymentId })).map((request) => request.state).sort();

/** What the customer's link may change: our payment and the adapter's rows. */
const snapshot = async (paymentId: string) => {
  const payment = await orm.em.fork().findOneOrFail(Payment, { id: paymentId });
  const { consentId, callbackAt, bankPaymentId } = await authorizationOf(paymentId);
  return {
    status: payment.status,
    version: payment.version,
    authorization: { consentId, callbackAt, bankPaymentId },
    requests: await requestsOf(paymentId),
  };
};

const open = (link: string | null) =>
  app.inject({ method: 'GET', url: new URL(link ?? '').pathname, headers: { accept: 'text/html' } });

/** A short page for the browser: HTML, never JSON, never a redirect. */
const expectPage = (response: Awaited<ReturnType<typeof open>>, status: number, text: RegExp) => {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toContain('text/html');
  expect(response.headers.location).toBeUndefined();
  expect(response.body).toMatch(text);
};

async function backAtCallback(bankRedirect: string) {
  const url = new URL(bankRedirect);
  return app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
}

const completed = (paymentId: string) =>
  until(async () => {
    await post(app, headers, `/api/payments/${paymentId}/sync`);
    return (await readPayment(app, headers, paymentId)).status === 'COMPLETED';
  });

/** Calls the service made to the obie adapter so far (its metrics: provider-metrics.ts). */
const obieCalls = async () =>
  (await providerCallDuration.get()).values
    .filter((value) => value.metricName === 'pis_provider_call_duration_seconds_count')
    .filter((value) => value.labels.provider === 'obie')
    .reduce((sum, value) => sum + value.value, 0);

const bankFaults = (faults: Parameters<typeof switchFaults>[1]) => switchFaults(bank.dataDir, faults);

describe('an obie customer link outlives the bank’s PAR request', () => {
  test('API_ONLY: opened after the bank’s PAR lifetime, the link still reaches the bank’s login; approve -> COMPLETED', async () => {
    const parsBefore = await liveParRequests();
    const payment = await obiePayment();
    expect(payment.redirectUrl).toMatch(/^http:\/\/localhost:3000\/providers\/obie\/authorize\/[^/]+$/);
    // The create made the consent, not the PAR request: nothing at the bank to go stale.
    expect(await liveParRequests()).toBe(parsBefore);
    expect(await requestsOf(payment.paymentId)).toEqual([]);

    // The customer opens it once; the bank's page from then dies with its PAR request.
    const stale = await openObieLink(app, payment.redirectUrl);
    await parLifetimePasses();
    const refusedByBank = new URL(await customerAt(stale, CALLBACK, { action: 'approve' }));
    expect(refusedByBank.searchParams.get('error')).toBe('invalid_request_uri');

    // Ten minutes later (the bank's 60 s long gone) the same link of ours works.
    clock.advance(10 * 60_000);
    const fresh = await openObieLink(app, payment.redirectUrl);
    expect(fresh.href).not.toBe(stale.href);
    const redirect = await customerAt(fresh, CALLBACK, { action: 'approve' });
    const back = await backAtCallback(redirect);
    expect(back.statusCode).toBe(200);
    await completed(payment.paymentId);

    // Finished: the link says so and offers nothing to act on.
    const after = await snapshot(payment.paymentId);
    expectPage(await open(payment.redirectUrl), 409, /This payment is completed/);
    expect(await snapshot(payment.paymentId)).toEqual(after);
  });

  test('opened twice: each open is a request of its own; the tab the customer finishes in counts, once', async () => {
    const payment = await obiePayment();
    const older = await openObieLink(app, payment.redirectUrl);
    const latest = await openObieLink(app, payment.redirectUrl);
    expect(latest.href).not.toBe(older.href);
    expect(await requestsOf(payment.paymentId)).toHaveLength(2);

    // The customer finishes in the older tab: its answer is good, the payment is submitted.
    const back = await backAtCallback(await customerAt(older, CALLBACK, { action: 'approve' }));
    expect(back.statusCode).toBe(200);
    expect(['SUBMITTED', 'ACCEPTED', 'COMPLETED']).toContain(
      new URL(/^0; url=(.+)$/.exec(String(back.headers.refresh))?.[1] ?? '').searchParams.get('status'),
    );
    const submitted = await snapshot(payment.paymentId);
    expect(submitted.authorization.bankPaymentId).not.toBeNull();

    // The newer tab then: the bank will not authorise a used consent; nothing is undone or made twice.
    const newer = await backAtCallback(await customerAt(latest, CALLBACK, { action: 'approve' }));
    expect(newer.statusCode).toBe(200);
    expect((await snapshot(payment.paymentId)).authorization).toEqual(submitted.authorization);
    await completed(payment.paymentId);
  });

  test('a link opened over and over keeps only its latest requests', async () => {
    const payment = await obiePayment();
    // 7 s apart: a link is opened at most 10 times a minute (obie-link-review.test.ts).
    for (let open = 0; open < 12; open++) {
      clock.advance(7_000);
      await openObieLink(app, payment.redirectUrl);
    }
    expect(await requestsOf(payment.paymentId)).toHaveLength(10);
  });

  test('a HEAD of the link (a mail scanner, a preview) checks the token only: no payment read, no bank asked', async () => {
    const payment = await obiePayment();
    const before = await snapshot(payment.paymentId);
    const callsBefore = await obieCalls();
    const head = await app.inject({ method: 'HEAD', url: new URL(payment.redirectUrl ?? '').pathname });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toContain('text/html');
    expect(head.headers.location).toBeUndefined();
    expect(await snapshot(payment.paymentId)).toEqual(before);
    // A link that is not genuine says so to a HEAD too.
    const token = tokenOf(payment.redirectUrl);
    const tampered = `/providers/obie/authorize/${token.slice(0, -1)}${token.at(-1) === 'A' ? 'B' : 'A'}`;
    expect((await app.inject({ method: 'HEAD', url: tampered })).statusCode).toBe(400);
    expect(await snapshot(payment.paymentId)).toEqual(before);
    // Not even the status read a GET makes first.
    expect(await obieCalls()).toBe(callsBefore);
    // The customer's GET still reaches the bank.
    expect((await open(payment.redirectUrl)).statusCode).toBe(303);
    expect(await requestsOf(payment.paymentId)).toHaveLength(1);
    expect(await obieCalls()).toBeGreaterThan(callsBefore);
  });

  test('a tampered link and a link of another page: a clear page (400), nothing changed', async () => {
    const payment = await obiePayment();
    const before = await snapshot(payment.paymentId);
    const token = tokenOf(payment.redirectUrl);
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const tampered = `http://localhost:3000/providers/obie/authorize/${token.slice(0, -1)}${last}`;
    expectPage(await open(tampered), 400, /This link is not valid/);
    expectPage(await open('http://localhost:3000/providers/obie/authorize/junk'), 400, /not valid/);
    // A genuine hosted-page token is not an obie link.
    const hosted = await obiePayment({ flowType: 'HOSTED_PAGES', bankId: undefined });
    expectPage(
      await open(`http://localhost:3000/providers/obie/authorize/${tokenOf(hosted.redirectUrl)}`),
      400,
      /not valid/,
    );
    expect(await snapshot(payment.paymentId)).toEqual(before);
  });

  test('one client address opening links beyond the pages budget: 429 page, the bank not asked', async () => {
    const payment = await obiePayment();
    const before = await snapshot(payment.paymentId);
    const parsBefore = await liveParRequests();
    const fromOneAddress = () =>
      app.inject({
        method: 'GET',
        url: new URL(payment.redirectUrl ?? '').pathname,
        headers: { accept: 'text/html' },
        remoteAddress: '203.0.113.77',
      });
    const budget = testConfig().rateLimits.pages;
    // Spend the address's budget with a forged link (no bank call), then the real one is refused.
    await withinOneWindow(testConfig().rateLimits.windowSeconds, 30_000);
    for (let i = 0; i < budget; i++) {
      const forged = await app.inject({
        method: 'GET',
        url: '/providers/obie/authorize/junk',
        remoteAddress: '203.0.113.77',
      });
      expect(forged.statusCode).toBe(400);
    }
    const refused = await fromOneAddress();
    expectPage(refused, 429, /Too many attempts/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await snapshot(payment.paymentId)).toEqual(before);
    expect(await liveParRequests()).toBe(parsBefore);
  }, 60_000);

  test('an expired link: a clear page (410) saying how long links last, nothing changed', async () => {
    const payment = await obiePayment();
    const before = await snapshot(payment.paymentId);
    const parsBefore = await liveParRequests();
    clock.advance(30 * 60_000);
    expectPage(await open(payment.redirectUrl), 410, /expired \(links last 30 minutes\)/);
    expect(await snapshot(payment.paymentId)).toEqual(before);
    expect(await liveParRequests()).toBe(parsBefore);

    // The merchant sends a new one (POST /payments/{id}/link): it works, for 30 minutes.
    const renewed = expectSuccess<{ redirectUrl: string; expiresAt: string }>(
      await post(app, headers, `/api/payments/${payment.paymentId}/link`),
      201,
    );
    expect(renewed.redirectUrl).toMatch(/\/providers\/obie\/authorize\//);
    expect(Date.parse(renewed.expiresAt) - clock.now().getTime()).toBeGreaterThan(29 * 60_000);
    expect(Date.parse(renewed.expiresAt) - clock.now().getTime()).toBeLessThanOrEqual(30 * 60_000);
    await openObieLink(app, renewed.redirectUrl);
  });

  test('a cancelled payment’s link says so; one already authorised at the bank says there is nothing to do', async () => {
    const cancelled = await obiePayment();
    expect((await post(app, headers, `/api/payments/${cancelled.paymentId}/cancel`)).statusCode).toBe(200);
    expectPage(await open(cancelled.redirectUrl), 409, /This payment is cancelled/);

    const approved = await obiePayment();
    const redirect = await customerAt(await openObieLink(app, approved.redirectUrl), CALLBACK, {
      action: 'approve',
    });
    expect((await backAtCallback(redirect)).statusCode).toBe(200);
    const before = await snapshot(approved.paymentId);
    const again = await open(approved.redirectUrl);
    expect(again.statusCode).toBe(409);
    expect(again.headers.location).toBeUndefined();
    // The link reads the payment first: the bank may have finished it meanwhile.
    const after = await snapshot(approved.paymentId);
    expect(after.authorization).toEqual(before.authorization);
  });

  test('a bank that cannot be reached: 502 page, nothing changed; back up, the same link works', async () => {
    const payment = await obiePayment();
    const before = await snapshot(payment.paymentId);
    await bankFaults({ outage: true });
    try {
      expectPage(await open(payment.redirectUrl), 502, /The bank could not be reached/);
      expect(await snapshot(payment.paymentId)).toEqual(before);
    } finally {
      await bankFaults({});
    }
    await openObieLink(app, payment.redirectUrl);
  });

  test('HOSTED_PAGES: choosing the bank leads through the same link (one more hop) to COMPLETED', async () => {
    const payment = await obiePayment({ flowType: 'HOSTED_PAGES', bankId: undefined });
    const choice = trpcData<{ redirectUrl: string }>(
      await trpcMutation(app, 'pages.chooseBank', { token: tokenOf(payment.redirectUrl), bankId: BANK_ID }),
    );
    expect(choice.redirectUrl).toMatch(/\/providers\/obie\/authorize\//);
    const back = await backAtCallback(
      await customerAt(await openObieLink(app, choice.redirectUrl), CALLBACK, { action: 'approve' }),
    );
    expect(back.statusCode).toBe(200);
    await completed(payment.paymentId);
  });
});

describe('what the bank is asked is bounded per payment (issue 31 item 7)', () => {
  test('opens at the same instant are counted before the bank is called: never more than 10 a minute', async () => {
    const payment = await obiePayment();
    clock.advance(120_000);
    const answers = await Promise.all(Array.from({ length: 16 }, () => open(payment.redirectUrl)));
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 303)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(6);
  });

  test('the client-credentials token is reused while valid; reads of one payment at the bank are capped', async () => {
    const payment = await obiePayment();
    const tokens = async () =>
      Number(
        (
          await bankDb.query<{ n: string }>(
            `select count(*) as n from oidc_payloads where type = 'ClientCredentials'`,
          )
        ).rows[0]?.n,
      );
    const tokensBefore = await tokens();
    const callsBefore = await obieCalls();
    for (let read = 0; read < 5; read++) await readPayment(app, headers, payment.paymentId);
    // Five reads at the bank, one token at most (a new one only when the held one runs out).
    expect((await tokens()) - tokensBefore).toBeLessThanOrEqual(1);
    expect((await obieCalls()) - callsBefore).toBe(5);

    // A merchant polling in a tight loop: the bank hears at most 30 reads of this payment in each
    // 10 s window (fixed windows: this burst may straddle two); the rest answer what we know.
    const capped = async () =>
      (await providerReadsCapped.get()).values.find((value) => value.labels.provider === 'obie')?.value ?? 0;
    const cappedBefore = await capped();
    const answers = await Promise.all(
      Array.from({ length: 80 }, () => readPayment(app, headers, payment.paymentId)),
    );
    expect(answers.every((answer) => answer.status === 'AUTHORIZING')).toBe(true);
    expect((await capped()) - cappedBefore).toBeGreaterThanOrEqual(85 - 2 * 30);
  });
});
