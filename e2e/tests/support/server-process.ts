import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnv, REPO_ROOT, SHOW_SERVER_LOG } from './e2e-config.ts';
import { freePort } from './free-port.ts';

const run = promisify(execFile);
const READY_TIMEOUT_MS = 120_000;
const LOG_TAIL = 60;

export interface RunningServer {
  baseUrl: string;
  linkSigningSecret: string;
  /** MailDev's web API (no SMTP_URL: `npm start` runs it), where tests read the mail sent. */
  mailInboxUrl: string;
  /** The mail inbox's address as the start box printed it (what a newcomer opens). */
  printedMailInbox: string;
  /** Runs the operator CLI against this server's database; returns its one JSON line. */
  admin(args: string[]): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * Starts the service the way `npm start` does (server workspace `start` script), on a random
 * port with its own embedded Postgres in a temporary folder, and waits until it answers.
 */
export async function startServer(
  options: { port?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunningServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'pis-e2e-'));
  // Postgres runs as the `postgres` user when we are root: it must reach the data folder.
  chmodSync(dir, 0o755);
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const linkSigningSecret = randomBytes(32).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...childEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: baseUrl,
    LINK_SIGNING_SECRET: linkSigningSecret,
    EMBEDDED_PG_DIR: path.join(dir, 'postgres'),
    EMBEDDED_PG_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    RUN_WORKER: 'true',
    // No SMTP_URL: MailDev takes the mail, on ports of its own (never another run's 1025/1080).
    MAILDEV_SMTP_PORT: String(await freePort()),
    MAILDEV_WEB_PORT: String(await freePort()),
    // The obie flows pass their own sandbox bank's client file; the rest run without obie.
    OBIE: 'off',
    NEXTGENPSD2: 'off',
    // Every browser test signs up and in from 127.0.0.1, as many people behind one NAT would:
    // the suite's ~40 attempts would cross the default 30 per 15 minutes, on a window's timing.
    RATE_LIMIT_SIGN_UPS: '1000',
    RATE_LIMIT_SIGN_INS: '1000',
    ...options.env,
  };
  delete env.SMTP_URL;
  delete env.DATABASE_URL;

  const child = spawn('npm', ['run', '-s', '-w', '@pis/server', 'start'], {
    cwd: REPO_ROOT,
    env,
    detached: true, // own process group: stop() ends npm, node and Postgres together
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    if (SHOW_SERVER_LOG) process.stderr.write(text);
    tail.push(...text.split('\n').filter((line) => line.trim()));
    tail.splice(0, Math.max(0, tail.length - LOG_TAIL));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const stop = async () => {
    await stopProcessGroup(child);
    rmSync(dir, { recursive: true, force: true });
  };

  // The start box's "mail inbox" line, read from stdout as a newcomer reads it.
  let printedMailInbox = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const printed = /mail inbox +(http:\/\/\S+)/.exec(chunk.toString());
    if (printed?.[1]) printedMailInbox = printed[1];
  });

  try {
    await waitUntilReady(baseUrl, child);
    // The box is printed right after the server starts listening.
    for (let waited = 0; !printedMailInbox && waited < 10_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n--- server output ---\n${tail.join('\n')}`);
  }

  const admin = async (args: string[]) => {
    const { stdout } = await run('npm', ['run', '-s', '-w', '@pis/server', 'admin', '--', ...args], {
      cwd: REPO_ROOT,
      env,
    });
    const line = stdout.trim().split('\n').at(-1) ?? '';
    return JSON.parse(line) as Record<string, unknown>;
  };

  return {
    baseUrl,
    linkSigningSecret,
    mailInboxUrl: `http://127.0.0.1:${env.MAILDEV_WEB_PORT}`,
    printedMailInbox,
    admin,
    stop,
  };
}

async function waitUntilReady(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode} during start`);
    try {
      const response = await fetch(`${baseUrl}/api/openapi.json`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`server not ready after ${READY_TIMEOUT_MS / 1000} s`);
}

/** SIGTERM to the group (graceful: the server stops its embedded Postgres), SIGKILL if it hangs. */
export async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
  // npm is gone; wait for the rest of the group (Postgres) before its folder is removed.
  for (let waited = 0; waited < 10_000 && groupAlive(child.pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};
