import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { EU_CUSTOMER } from '../../src/xs2a/accounts.ts';
import { type RequestOptions, type Xs2aAnswer, xs2aClient } from '../../src/xs2a-client/client.ts';
import { startTestBank, type TestBank } from './bank.ts';
import { assertXs2a, assertXs2aError, type Xs2aSchema } from './xs2a-schemas.ts';

export const TPP_REDIRECT = 'https://merchant-pis.example/providers/nextgenpsd2/callback?state=ok';
export const TPP_NOK_REDIRECT = 'https://merchant-pis.example/providers/nextgenpsd2/callback?state=nok';
export const CREDITOR_IBAN = 'DE89370400440532013000';
export const SCT = '/v1/payments/sepa-credit-transfers';

export type Tpp = ReturnType<typeof xs2aClient> & {
  call(method: string, path: string, options?: RequestOptions & { schema?: Xs2aSchema }): Promise<Xs2aAnswer>;
};

/**
 * The client of src/xs2a-client with the tests' yardstick: every answer's X-Request-ID is the
 * one sent (when one was), errors match the document's error schema for their status, and
 * successes the schema the test names.
 */
export function tppFor(config: Parameters<typeof xs2aClient>[0]): Tpp {
  const client = xs2aClient(config);
  return {
    ...client,
    call: async (method, path, options = {}) => {
      const requestId = randomUUID();
      const answer = await client.request(method, path, {
        ...options,
        headers: options.omit?.includes('x-request-id')
          ? options.headers
          : { 'x-request-id': requestId, ...options.headers },
      });
      const sentId = options.omit?.includes('x-request-id')
        ? undefined
        : (options.headers?.['x-request-id'] ?? requestId);
      if (sentId && /^[0-9a-f-]{36}$/i.test(sentId) && answer.headers.get('x-request-id') !== sentId)
        throw new Error(`X-Request-ID not echoed: ${answer.headers.get('x-request-id')} for ${sentId}`);
      if (answer.status >= 400) assertXs2aError(answer.status, answer.body, method === 'DELETE');
      else if (options.schema) assertXs2a(options.schema, answer.body);
      return answer;
    },
  };
}

export function paymentBody(amount = '42.00', extra: Record<string, unknown> = {}) {
  return {
    endToEndIdentification: `E2E-${amount}`,
    instructedAmount: { currency: 'EUR', amount },
    creditorAccount: { iban: CREDITOR_IBAN },
    creditorName: 'Kaffeehaus Berlin GmbH',
    remittanceInformationUnstructured: `Order ${amount}`,
    ...extra,
  };
}

export const initiationHeaders = {
  'psu-ip-address': '192.168.8.78',
  'tpp-redirect-uri': TPP_REDIRECT,
  'tpp-nok-redirect-uri': TPP_NOK_REDIRECT,
};

export async function createPayment(
  tpp: Tpp,
  amount = '42.00',
  product = 'sepa-credit-transfers',
  extra = {},
) {
  const answer = await tpp.call('POST', `/v1/payments/${product}`, {
    body: paymentBody(amount, extra),
    headers: initiationHeaders,
    schema: 'paymentInitationRequestResponse-201',
  });
  if (answer.status !== 201)
    throw new Error(`create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer;
}

/**
 * The customer at Sandbox Bank EU's pages without a browser: follows the scaRedirect link, signs
 * in (the cookie kept), then approves from an account or rejects. Returns where the bank sends them.
 */
export async function customerDecides(
  scaRedirect: string,
  decision: { action: 'approve' | 'reject'; account?: string },
): Promise<string> {
  const origin = new URL(scaRedirect).origin;
  const login = await fetch(`${scaRedirect}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ username: EU_CUSTOMER.username, password: EU_CUSTOMER.password }).toString(),
  });
  if (login.status !== 303) throw new Error(`sign-in answered ${login.status}: ${await login.text()}`);
  const cookie = login.headers.getSetCookie()[0]?.split(';')[0] ?? '';
  const page = await fetch(scaRedirect, { headers: { cookie } });
  const html = await page.text();
  if (!html.includes('Approve this payment')) throw new Error(`no approval page: ${html.slice(0, 300)}`);
  const decided = await fetch(`${scaRedirect}/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie },
    body: new URLSearchParams({
      action: decision.action,
      account: decision.account ?? 'eu-current',
    }).toString(),
  });
  await decided.body?.cancel();
  return decided.headers.get('location') ?? `(${decided.status})`;
}

/** A bank for one test file and the service's TPP (the certificate the bank issued at start). */
export function bankWithTpp(overrides: Parameters<typeof startTestBank>[0] = {}) {
  let bank: TestBank | undefined;
  let tpp: Tpp | undefined;
  beforeAll(async () => {
    bank = await startTestBank(overrides);
    tpp = tppFor({ ...bank.xs2a.clientConfig.transport, baseUrl: bank.xs2a.baseUrl });
  });
  afterAll(async () => {
    await tpp?.close();
    await bank?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the bank is started in beforeAll');
    return value;
  };
  return {
    get bank() {
      return started(bank);
    },
    get tpp() {
      return started(tpp);
    },
    count: async () =>
      Number((await started(bank).database.pool.query('select count(*) from xs2a_payments')).rows[0].count),
    balance: async (id: string) =>
      (await started(bank).database.pool.query('select balance from accounts where id = $1', [id])).rows[0]
        .balance as string,
  };
}
