import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { type Bank, startBank } from '../../src/app.ts';
import { type BankConfig, loadConfig } from '../../src/config.ts';
import { silentLogger } from '../../src/logger.ts';

export const REDIRECT_URI = 'https://merchant-pis.example/providers/obie/callback';

export interface TestBank extends Bank {
  dataDir: string;
  stop(): Promise<void>;
}

/** A bank on free ports, a fresh database and a temp data folder (fresh keys). */
export async function startTestBank(overrides: Partial<BankConfig> = {}): Promise<TestBank> {
  const dataDir = overrides.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'sandbox-bank-')));
  await chmod(dataDir, 0o755);
  const databaseUrl = overrides.databaseUrl ?? (await freshDatabase());
  const config: BankConfig = {
    ...loadConfig({}),
    port: 0,
    apiPort: 0,
    dataDir,
    databaseUrl,
    redirectUris: [REDIRECT_URI],
    eventUrl: undefined,
    stepMs: 300,
    logLevel: 'silent',
    ...overrides,
  };
  const bank = await startBank(config, silentLogger());
  return {
    ...bank,
    dataDir,
    stop: async () => {
      await bank.close();
      if (!overrides.dataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function freshDatabase(): Promise<string> {
  const adminUrl = inject('bankTestAdminUrl');
  const name = `sandbox_bank_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A local callback that records what the bank POSTs (and can be told to fail). */
export async function startCatcher(): Promise<{
  url: string;
  received: { headers: http.IncomingHttpHeaders; body: string }[];
  failWith: (status: number | undefined) => void;
  close(): Promise<void>;
}> {
  const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let failure: number | undefined;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.statusCode = failure ?? 202;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}/event-notifications`,
    received,
    failWith: (status) => {
      failure = status;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function until<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
