import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childEnv, REPO_ROOT } from './e2e-config.ts';
import { freePort } from './free-port.ts';
import { type RunningServer, startServer, stopProcessGroup } from './server-process.ts';

export interface SandboxBankSetup {
  server: RunningServer;
  /** The sandbox bank's data folder (client.json, xs2a-client.json, faults.json). */
  bankDir: string;
  /** The sandbox bank's customer pages (plain HTTP on 127.0.0.1). */
  bankPagesUrl: string;
  /** The bank's own embedded Postgres (its password is in `bankDir`). */
  bankPgPort: number;
  organizationId: string;
  apiKey: string;
  stop(): Promise<void>;
}

/**
 * The sandbox bank started as `npm start` would (own embedded Postgres and keys in a temp
 * folder, both faces), a service of its own configured from the bank's data folder by
 * `serverEnv`, and an organization the operator approved for `provider`, with a read+write key.
 * The obie and nextgenpsd2 setups differ only in what the service is told.
 */
export async function startSandboxBankSetup(options: {
  organizationName: string;
  provider: string;
  /** The file the bank must have written before the service starts. */
  clientFile: string;
  serverEnv: (bankDir: string) => Record<string, string>;
  bankEnv?: Record<string, string>;
}): Promise<SandboxBankSetup> {
  const bankDir = mkdtempSync(path.join(tmpdir(), `pis-e2e-${options.provider}-bank-`));
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
      SANDBOX_BANK_STEP_MS: '300',
      SANDBOX_BANK_LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      SANDBOX_BANK_DATABASE_URL: '',
      ...options.bankEnv,
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
    const written = path.join(bankDir, options.clientFile);
    if (!existsSync(written)) throw new Error(`the bank wrote no ${written}`);
  } catch (error) {
    await stopBank();
    throw error;
  }
  const server = await startServer({ port, env: options.serverEnv(bankDir) }).catch(async (error) => {
    await stopBank();
    throw error;
  });
  const stop = async () => {
    await server.stop();
    await stopBank();
  };
  try {
    const org = await server.admin(['org:create', '--name', options.organizationName]);
    const organizationId = String(org.organizationId ?? org.id);
    await server.admin(['org:approve-provider', '--org', organizationId, '--provider', options.provider]);
    const key = await server.admin(['key:create', '--org', organizationId, '--permissions', 'read,write']);
    return {
      server,
      bankDir,
      bankPagesUrl: `http://127.0.0.1:${bankPagesPort}`,
      bankPgPort,
      organizationId,
      apiKey: String(key.apiKey ?? key.key),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
