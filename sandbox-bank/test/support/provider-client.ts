import { afterAll, beforeAll } from 'vitest';
import { connect as connectClient, consentRequest, type ObClient } from '../../src/walkthrough/ob-client.ts';
import { startTestBank, type TestBank } from './bank.ts';
import { customerAt } from './customer.ts';
import { assertMatches, type ObSchema } from './ob-schemas.ts';

export { consentRequest, paymentRequest } from '../../src/walkthrough/ob-client.ts';

/**
 * The provider's client of src/walkthrough with the tests' yardstick added: every answer of the
 * bank is checked against the official OB schema (errors against OBErrorResponse1, successes
 * against the schema the test names).
 */
export type Provider = Omit<ObClient, 'api'> & {
  api(
    method: 'GET' | 'POST',
    path: string,
    options: Parameters<ObClient['api']>[2] & { schema?: ObSchema },
  ): ReturnType<ObClient['api']>;
};

export async function connect(...args: Parameters<typeof connectClient>): Promise<Provider> {
  const base = await connectClient(...args);
  return {
    ...base,
    api: async (method, path, options) => {
      const { schema, ...rest } = options;
      const answer = await base.api(method, path, rest);
      if (answer.status >= 400) assertMatches('OBErrorResponse1', answer.body);
      else if (schema) assertMatches(schema, answer.body);
      return answer;
    },
  };
}

/** Consent -> the customer approves (or rejects) at the bank -> tokens: the steps most tests start from. */
export async function authorisedConsent(
  provider: Provider,
  redirectUri: string,
  options: { amount?: string; reference?: string; account?: string } = {},
) {
  const clientToken = await provider.clientCredentials();
  const request = consentRequest(options.amount, options.reference);
  const created = await provider.api('POST', '/domestic-payment-consents', {
    token: clientToken,
    body: request,
  });
  const consentId: string = created.body.Data.ConsentId;
  const authorization = await provider.authorizationUrl(consentId);
  const callback = await customerAt(authorization.url, redirectUri, {
    action: 'approve',
    ...(options.account ? { account: options.account } : {}),
  });
  const tokens = await provider.exchange(callback, authorization);
  return { clientToken, request, consentId, tokens, accessToken: tokens.access_token };
}

/**
 * A bank started for one test file with a connected provider holding a client-credentials
 * token (started before the file's tests, stopped after), and a row count of its tables to
 * show that a refused request changed nothing.
 */
export function bankWithProvider(): {
  readonly bank: TestBank;
  readonly provider: Provider;
  readonly clientToken: string;
  count(table: 'consents' | 'payments'): Promise<number>;
} {
  let bank: TestBank | undefined;
  let provider: Provider | undefined;
  let clientToken: string | undefined;
  beforeAll(async () => {
    bank = await startTestBank();
    provider = await connect(bank.clientConfig);
    clientToken = await provider.clientCredentials();
  });
  afterAll(async () => {
    await provider?.close();
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
    get provider() {
      return started(provider);
    },
    get clientToken() {
      return started(clientToken);
    },
    count: async (table) =>
      Number((await started(bank).database.pool.query(`select count(*) from ${table}`)).rows[0].count),
  };
}
