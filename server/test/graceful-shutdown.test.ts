import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  GracefulShutdown,
  SHUTDOWN_TIMEOUT_MS,
  STEP_BUDGET_MS,
  STOP_GRACE_PERIOD_MS,
} from '../src/lifecycle/graceful-shutdown.ts';
import { silentLogger } from '../src/logger.ts';
import { createTestDatabase } from './helpers/test-database.ts';

describe('graceful shutdown timers', () => {
  it('fit inside each other: pg-boss inside the background step, the steps inside the timeout, the timeout inside the grace period', () => {
    expect(STEP_BUDGET_MS.queue).toBeLessThan(STEP_BUDGET_MS.background);
    const steps = STEP_BUDGET_MS.http + STEP_BUDGET_MS.background + STEP_BUDGET_MS.database;
    // Plus the quick in-process steps (500 ms each at most: the database clock, keep-alive).
    expect(steps + 2 * 500).toBeLessThanOrEqual(SHUTDOWN_TIMEOUT_MS);
    expect(SHUTDOWN_TIMEOUT_MS).toBeLessThan(STOP_GRACE_PERIOD_MS);
  });

  it('leaves a step behind when it overruns its budget and still runs the later ones, in reverse order', async () => {
    const shutdown = new GracefulShutdown(silentLogger(), { timeoutMs: 5_000 });
    const ran: string[] = [];
    shutdown.add('database', async () => {
      ran.push('database');
    });
    shutdown.add(
      'background',
      async () => {
        ran.push('background started');
        await new Promise(() => {}); // never finishes
      },
      100,
    );
    shutdown.add('http', async () => {
      ran.push('http');
    });
    expect(shutdown.budgetMs).toBe(1_100);
    const started = Date.now();
    await shutdown.run();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(ran).toEqual(['http', 'background started', 'database']);
  });
});

describe('the server process', () => {
  it('on SIGTERM stops HTTP, the worker, pg-boss and the pool, and exits 0 well inside the grace period', async () => {
    const database = await createTestDatabase();
    afterAll(() => database.drop());
    const child = spawn(process.execPath, ['src/main.ts'], {
      cwd: path.resolve(fileURLToPath(new URL('..', import.meta.url))),
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: database.url,
        PORT: '0',
        LINK_SIGNING_SECRET: 'shutdown-test-secret-0123456789abcdefghij',
        LOG_LEVEL: 'warn',
        // Set, so `npm start`'s MailDev (fixed ports 1025/1080) does not start here; no mail is sent.
        SMTP_URL: 'smtp://127.0.0.1:9',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!output.includes('ready in') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).toContain('ready in');
    const signalled = Date.now();
    child.kill('SIGTERM');
    expect(await exited, output).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(output).not.toMatch(/overran|timed out|failed/);
  }, 40_000);
});
