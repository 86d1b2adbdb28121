import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { type Xs2aAnswer, xs2aClient } from '../../../sandbox-bank/src/xs2a-client/client.ts';
import {
  assertXs2a,
  assertXs2aError,
  type Xs2aSchema,
} from '../../../sandbox-bank/test/support/xs2a-schemas.ts';
import { type SandboxBankSetup, startSandboxBankSetup } from './sandbox-bank-setup.ts';

export const EU_BANK_ID = 'sandbox-bank-eu';

export interface EuSetup extends SandboxBankSetup {
  /**
   * The service's TPP at the bank, from the same xs2a-client.json (mTLS + signed requests): each
   * answer checked against the Berlin Group document's schema (or its error schema for a 4xx).
   */
  tpp(method: string, urlPath: string, schema: Xs2aSchema): Promise<Xs2aAnswer>;
  /** The bank's payment id (`sct-...`) behind an authorisation id (`sca-...`, the bank page's address). */
  bankPaymentOf(authorisationId: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A clean `nextgenpsd2` setup as a newcomer makes it (the EU twin of obie-bank.ts): the sandbox
 * bank started as `npm start` would (own embedded Postgres and keys in a temp folder), a service
 * of its own that finds Sandbox Bank EU through the bank's data folder (`SANDBOX_BANK_DATA_DIR`,
 * as `npm start` with both would have it; obie off), and an organization the operator approved
 * for nextgenpsd2 with a read+write key.
 */
export async function startEuSetup(organizationName: string): Promise<EuSetup> {
  const setup = await startSandboxBankSetup({
    organizationName,
    provider: 'nextgenpsd2',
    clientFile: 'xs2a-client.json',
    serverEnv: (bankDir) => ({ OBIE: 'off', NEXTGENPSD2: 'on', SANDBOX_BANK_DATA_DIR: bankDir }),
    bankEnv: { SANDBOX_BANK_EVENT_URL: 'off' },
  });
  const { bankDir, bankPgPort } = setup;
  const clientFile = path.join(bankDir, 'xs2a-client.json');
  const client = JSON.parse(readFileSync(clientFile, 'utf8')) as {
    baseUrl: string;
    transport: { certificatePem: string; privateKeyPem: string; caCertificatePem: string };
  };
  const tppClient = xs2aClient({ baseUrl: client.baseUrl, ...client.transport });
  const password = readFileSync(path.join(bankDir, 'postgres-password'), 'utf8').trim();
  const bankDb = new pg.Pool({
    connectionString: `postgres://postgres:${password}@127.0.0.1:${bankPgPort}/postgres`,
    max: 1,
  });
  return {
    ...setup,
    tpp: async (method, urlPath, schema) => {
      const answer = await tppClient.request(method, urlPath);
      if (answer.status >= 400) assertXs2aError(answer.status, answer.body);
      else assertXs2a(schema, answer.body);
      return answer;
    },
    bankPaymentOf: async (authorisationId) => {
      const { rows } = await bankDb.query<{ id: string }>(
        'select id from sandbox_bank.xs2a_payments where authorisation_id = $1',
        [authorisationId],
      );
      if (!rows[0]) throw new Error(`the bank has no payment for ${authorisationId}`);
      return rows[0].id;
    },
    stop: async () => {
      await tppClient.close().catch(() => {});
      await bankDb.end().catch(() => {});
      await setup.stop();
    },
  };
}
