import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../src/db/embedded-postgres.ts';
import {
  DEFAULT_DRAIN_MS,
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
    expect(DEFAULT_DRAIN_MS + SHUTDOWN_TIMEOUT_MS).toBeLessThan(STOP_GRACE_PERIOD_MS);
  });

  it('drains first on request: begins the drains, waits drainMs, then runs the steps; without it (SIGINT) stops at once', async () => {
    const events: string[] = [];
    const started = Date.now();
    const shutdown = new GracefulShutdown(silentLogger(), { timeoutMs: 5_000, drainMs: 300 });
    shutdown.onDrain(() => events.push(`drain at ${Date.now() - started}`));
    shutdown.add('http', async () => {
      events.push(`http at ${Date.now() - started}`);
    });
    await shutdown.run({ drain: true });
    expect(events).toHaveLength(2);
    const [drainAt, httpAt] = events.map((event) => Number(event.split(' at ')[1]));
    expect(drainAt).toBeLessThan(100);
    expect(httpAt).toBeGreaterThanOrEqual(290);

    const quick = new GracefulShutdown(silentLogger(), { timeoutMs: 5_000, drainMs: 10_000 });
    let drained = false;
    quick.onDrain(() => {
      drained = true;
    });
    const quickStart = Date.now();
    await quick.run();
    expect(drained).toBe(false);
    expect(Date.now() - quickStart).toBeLessThan(1_000);
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
    onTestFinished(() => database.drop());
    const { child, exited, output } = await startMain({
      DATABASE_URL: database.url,
      PORT: '0',
      LINK_SIGNING_SECRET: 'shutdown-test-secret-0123456789abcdefghij',
      LOG_LEVEL: 'warn',
      // The steps alone here; the drain before them has its own test below.
      SHUTDOWN_DRAIN_MS: '0',
      // Set, so `npm start`'s MailDev (fixed ports 1025/1080) does not start here; no mail is sent.
      SMTP_URL: 'smtp://127.0.0.1:9',
    });
    const signalled = Date.now();
    child.kill('SIGTERM');
    expect(await exited, output()).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(SHUTDOWN_TIMEOUT_MS);
    expect(output()).not.toMatch(/overran|timed out|failed/);
  }, 40_000);
});

describe('the drain on SIGTERM', () => {
  it('answers /ready 503 while it still serves everything else with Connection: close, then exits 0', async () => {
    const database = await createTestDatabase();
    onTestFinished(() => database.drop());
    const port = await freePort();
    const metricsPort = await freePort();
    const drainMs = 2_000;
    const { child, exited, output } = await startMain({
      DATABASE_URL: database.url,
      PORT: String(port),
      LINK_SIGNING_SECRET: 'shutdown-test-secret-0123456789abcdefghij',
      LOG_LEVEL: 'warn',
      RUN_WORKER: 'false',
      SMTP_URL: 'smtp://127.0.0.1:9',
      SHUTDOWN_DRAIN_MS: String(drainMs),
      METRICS_PORT: String(metricsPort),
    });
    // main.ts re-executed itself with its memory settings (lifecycle/memory-settings.ts) under the
    // same PID: the SIGTERM below reaches the service, not a launcher.
    const proc = (file: string) => readFileSync(`/proc/${child.pid}/${file}`, 'utf8').split('\0');
    expect(proc('cmdline')).toContain('--max-semi-space-size=4');
    expect(proc('environ')).toContain('MALLOC_ARENA_MAX=2');

    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (url: string) =>
      new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: url, agent }, (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => {
              body += chunk.toString('utf8');
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }),
            );
          })
          .on('error', reject);
      });
    const before = await get('/ready');
    expect(before).toMatchObject({ status: 200, connection: 'keep-alive' });

    const signalled = Date.now();
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The same keep-alive connection: not reset, answered, and told to close.
    const ready = await get('/ready');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toMatchObject({ success: false, error: { code: 'NOT_READY' } });
    expect(ready.connection).toBe('close');
    const served = await get('/health');
    expect(served).toMatchObject({ status: 200, connection: 'close' });
    const api = await get('/api/openapi.json');
    expect(api.status).toBe(200);
    // The metrics listener stops last: a scrape during the drain sees the drain's answers.
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      /^http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/ready",http_response_status_code="503"\} 1$/m,
    );
    expect(Date.now() - signalled).toBeLessThan(drainMs);

    expect(await exited, output()).toBe(0);
    const took = Date.now() - signalled;
    expect(took).toBeGreaterThanOrEqual(drainMs);
    expect(took).toBeLessThan(drainMs + SHUTDOWN_TIMEOUT_MS);
    expect(output()).not.toMatch(/overran|timed out|failed/);
    agent.destroy();
  }, 40_000);
});

/** `src/main.ts` with `env` (and PATH), once it printed that it is ready; its output so far. */
async function startMain(env: Record<string, string>) {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: path.resolve(fileURLToPath(new URL('..', import.meta.url))),
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Killed however the test ends (a hook registered inside a test must be onTestFinished).
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!output.includes('ready in') && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(output).toContain('ready in');
  return { child, exited, output: () => output };
}
