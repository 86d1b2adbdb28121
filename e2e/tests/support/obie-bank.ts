import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { childEnv, REPO_ROOT } from './e2e-config.ts';
import { freePort } from './free-port.ts';
import { type RunningServer, startServer, stopProcessGroup } from './server-process.ts';

export const OBIE_BANK_ID = 'obie-sandbox-bank';

export interface ObieSetup {
  server: RunningServer;
  /** The sandbox bank's data folder (its client.json and faults.json). */
  bankDir: string;
  /** The sandbox bank's customer pages (plain HTTP on 127.0.0.1). */
  bankPagesUrl: string;
  organizationId: string;
  apiKey: string;
  stop(): Promise<void>;
}

/**
 * A clean `obie` setup as a newcomer makes it: the sandbox bank started as `npm start` would (own
 * embedded Postgres and keys in a temp folder), a service of its own configured from the bank's
 * client.json, and an organization the operator approved for obie, with a read+write key.
 */
export async function startObieSetup(organizationName: string): Promise<ObieSetup> {
  const bankDir = mkdtempSync(path.join(tmpdir(), 'pis-e2e-obie-bank-'));
  // Postgres runs as the `postgres` user when we are root: it must reach the data folder.
  chmodSync(bankDir, 0o755);
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const bankPagesPort = await freePort();
  const bank: ChildProcess = spawn('npm', ['run', '-s', '-w', '@pis/sandbox-bank', 'start'], {
    cwd: REPO_ROOT,
    env: {
      ...childEnv(),
      SANDBOX_BANK_PORT: String(bankPagesPort),
      SANDBOX_BANK_API_PORT: String(await freePort()),
      SANDBOX_BANK_PG_PORT: String(await freePort()),
      SANDBOX_BANK_DATA_DIR: bankDir,
      SANDBOX_BANK_CLIENT_BASE_URL: baseUrl,
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
    expect(existsSync(path.join(bankDir, 'client.json'))).toBe(true);
  } catch (error) {
    await stopBank();
    throw error;
  }
  const server = await startServer({
    port,
    env: { OBIE: 'on', OBIE_SANDBOX_CLIENT_FILE: path.join(bankDir, 'client.json') },
  }).catch(async (error) => {
    await stopBank();
    throw error;
  });
  const org = await server.admin(['org:create', '--name', organizationName]);
  const organizationId = String(org.organizationId ?? org.id);
  await server.admin(['org:approve-provider', '--org', organizationId, '--provider', 'obie']);
  const key = await server.admin(['key:create', '--org', organizationId, '--permissions', 'read,write']);
  return {
    server,
    bankDir,
    bankPagesUrl: `http://127.0.0.1:${bankPagesPort}`,
    organizationId,
    apiKey: String(key.apiKey ?? key.key),
    stop: async () => {
      await server.stop();
      await stopBank();
    },
  };
}
