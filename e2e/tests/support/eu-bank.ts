import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Xs2aAnswer, xs2aClient } from '../../../sandbox-bank/src/xs2a-client/client.ts';
import {
  assertXs2a,
  assertXs2aError,
  type Xs2aSchema,
} from '../../../sandbox-bank/test/support/xs2a-schemas.ts';
import { childEnv, REPO_ROOT } from './e2e-config.ts';
import { freePort } from './free-port.ts';
import { type RunningServer, startServer, stopProcessGroup } from './server-process.ts';

export const EU_BANK_ID = 'sandbox-bank-eu';

export interface EuSetup {
  server: RunningServer;
  /** The sandbox bank's data folder (its xs2a-client.json). */
  bankDir: string;
  /** The sandbox bank's customer pages (plain HTTP on 127.0.0.1). */
  bankPagesUrl: string;
  organizationId: string;
  apiKey: string;
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
  const bankDir = mkdtempSync(path.join(tmpdir(), 'pis-e2e-eu-bank-'));
  // Postgres runs as the `postgres` user when we are root: it must reach the data folder.
  chmodSync(bankDir, 0o755);
  const port = await freePort();
  const bankPagesPort = await freePort();
  const bankPgPort = await freePort();
  const bank: ChildProcess = spawn('npm', ['run', '-s', '-w', '@pis/sandbox-bank', 'start'], {
    cwd: REPO_ROOT,
    env: {
      ...childEnv(),
      SANDBOX_BANK_PORT: String(bankPagesPort),
      SANDBOX_BANK_API_PORT: String(await freePort()),
      SANDBOX_BANK_PG_PORT: String(bankPgPort),
      SANDBOX_BANK_DATA_DIR: bankDir,
      SANDBOX_BANK_CLIENT_BASE_URL: `http://127.0.0.1:${port}`,
      SANDBOX_BANK_EVENT_URL: 'off',
      SANDBOX_BANK_STEP_MS: '300',
      SANDBOX_BANK_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      SANDBOX_BANK_DATABASE_URL: '',
    },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stopBank = async () => {
    await stopProcessGroup(bank);
    rmSync(bankDir, { recursive: true, force: true });
  };
  const clientFile = path.join(bankDir, 'xs2a-client.json');
  try {
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`bank not ready:\n${output.join('')}`)), 120_000);
      bank.stdout?.on('data', (chunk: Buffer) => {
        output.push(chunk.toString());
        if (output.join('').includes('Sandbox Bank ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
      bank.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      bank.once('exit', (code) => reject(new Error(`bank exited ${code}:\n${output.join('')}`)));
    });
    if (!existsSync(clientFile)) throw new Error(`the bank wrote no ${clientFile}`);
  } catch (error) {
    await stopBank();
    throw error;
  }
  const server = await startServer({
    port,
    env: { OBIE: 'off', NEXTGENPSD2: 'on', SANDBOX_BANK_DATA_DIR: bankDir },
  }).catch(async (error) => {
    await stopBank();
    throw error;
  });

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
  const stop = async () => {
    await tppClient.close().catch(() => {});
    await bankDb.end().catch(() => {});
    await server.stop();
    await stopBank();
  };
  try {
    const org = await server.admin(['org:create', '--name', organizationName]);
    const organizationId = String(org.organizationId ?? org.id);
    await server.admin(['org:approve-provider', '--org', organizationId, '--provider', 'nextgenpsd2']);
    const key = await server.admin(['key:create', '--org', organizationId, '--permissions', 'read,write']);
    return {
      server,
      bankDir,
      bankPagesUrl: `http://127.0.0.1:${bankPagesPort}`,
      organizationId,
      apiKey: String(key.apiKey ?? key.key),
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
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
