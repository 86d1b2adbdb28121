import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, expect } from 'vitest';
import { NO_FAULTS, writeFaults } from '../../../sandbox-bank/src/faults.ts';
import { startTestBank } from '../../../sandbox-bank/test/support/bank.ts';
import type { Config } from '../../src/config.ts';
import type { PaymentScheduler } from '../../src/payments/payment-scheduler.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { created, paymentBody } from '../payments/payment-fixtures.ts';

export const PUBLIC_BASE_URL = 'http://localhost:3000';
export const CALLBACK = `${PUBLIC_BASE_URL}/providers/obie/callback`;
export const BANK_ID = 'obie-sandbox-bank';

/**
 * The real sandbox bank (its own database, free ports, fresh keys, our callback registered) and
 * a test app with an `obie` connection to it, stopped after the file. The app's scheduler only
 * records what it was asked to poll (nothing is queued): `polls`.
 */
export async function obieWithSandboxBank(options: { stepMs: number; config?: Partial<Config> }) {
  const bankDatabase = await createTestDatabase();
  const bank = await startTestBank({
    databaseUrl: bankDatabase.url,
    redirectUris: [CALLBACK],
    stepMs: options.stepMs,
  });
  afterAll(async () => {
    await bank.stop();
    await bankDatabase.drop();
  });
  const connections = [
    { bankId: BANK_ID, name: 'Sandbox Bank', clientFile: path.join(bank.dataDir, 'client.json') },
  ];
  const polls: { paymentId: string; attempt: number; delayMs: number }[] = [];
  const pollRecorder: PaymentScheduler = {
    paymentDue: async () => {},
    providerClaimDue: async () => {},
    providerPollDue: async (paymentId, attempt, dueAt) => {
      polls.push({ paymentId, attempt, delayMs: dueAt.getTime() - testApp.clock.now().getTime() });
    },
  };
  const testApp = await createTestApp({
    config: { publicBaseUrl: PUBLIC_BASE_URL, obieConnections: connections, ...options.config },
    scheduler: pollRecorder,
  });
  return { bank, bankDatabase, connections, polls, pollRecorder, ...testApp };
}

/**
 * The customer opens an `obie` payment's link (ours): the route makes a fresh PAR request at the
 * bank and answers 303 to the bank's authorization page, whose URL this returns.
 */
export async function openObieLink(app: FastifyInstance, link: string | null | undefined): Promise<URL> {
  const url = new URL(link ?? '');
  expect(url.pathname).toMatch(/^\/providers\/obie\/authorize\/[^/]+$/);
  const opened = await app.inject({ method: 'GET', url: url.pathname });
  expect(opened.statusCode, opened.body).toBe(303);
  const bankUrl = new URL(String(opened.headers.location));
  expect(bankUrl.searchParams.get('request_uri')).toMatch(/^urn:/);
  return bankUrl;
}

/** Switches the bank's faults (outage, slowness, 429s); the bank re-reads them every second. */
export async function bankFaults(dataDir: string, faults: Partial<typeof NO_FAULTS>) {
  writeFaults(dataDir, { ...NO_FAULTS, ...faults });
  await new Promise((resolve) => setTimeout(resolve, 2_200));
}

/** A merchant approved for `obie`, and its API_ONLY create at the sandbox bank. */
export async function obieMerchant(
  setup: Pick<Awaited<ReturnType<typeof obieWithSandboxBank>>, 'app' | 'factories'>,
) {
  const merchant = await setup.factories.createMerchant();
  await setup.factories.approveProvider(merchant.organizationId, 'obie');
  const obiePayment = (overrides: Record<string, unknown> = {}) =>
    created(setup.app, merchant.headers, paymentBody({ provider: 'obie', bankId: BANK_ID, ...overrides }));
  return { merchant, headers: merchant.headers, obiePayment };
}

/**
 * What the sandbox bank itself holds, read in its own database (closed after the file), and how
 * many PAR requests it still keeps.
 */
export function bankDatabaseOf(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 2, options: '-c search_path=sandbox_bank' });
  afterAll(() => pool.end());
  const liveParRequests = async () =>
    (
      await pool.query<{ n: number }>(
        `select count(*)::int as n from oidc_payloads
         where type = 'PushedAuthorizationRequest' and (expires_at is null or expires_at > now())`,
      )
    ).rows[0]?.n;
  return { pool, liveParRequests };
}
