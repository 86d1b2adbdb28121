import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createApiKey } from '../src/auth/api-keys.ts';
import { systemClock } from '../src/clock.ts';
import { freePort } from '../src/db/embedded-postgres.ts';
import { openOrm } from '../src/db/orm.ts';
import { DEFAULT_DRAIN_MS, SHUTDOWN_TIMEOUT_MS } from '../src/lifecycle/graceful-shutdown.ts';
import { createOrganization } from '../src/organizations/organization-admin.ts';
import { createTestDatabase } from './helpers/test-database.ts';

/**
 * Issue 20's proof of a zero-downtime deploy: three full instances (API + worker, as `npm start`
 * runs them) behind Debian's HAProxy running deploy/haproxy.cfg, a steady stream of creates
 * (half with an Idempotency-Key, half without: those HAProxy never retries) and reads, and
 * each instance restarted in turn (SIGTERM, exit, start, back in rotation). Not one request may
 * fail, and every payment a create answered 201 for must be readable afterwards.
 * Before issue 20 (no drain) the same run failed requests on every restart.
 */

const HAPROXY = '/usr/sbin/haproxy';
const SERVER_DIR = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const HAPROXY_CFG = path.resolve(SERVER_DIR, '..', 'deploy', 'haproxy.cfg');
const INSTANCES = 3;
/** The shipped default: the health check must take the instance out inside it. */
const DRAIN_MS = DEFAULT_DRAIN_MS;
const CREATE_LOOPS = 3;
const READ_LOOPS = 3;
/** Between a loop's requests: a steady stream, not a flood that starves the restarting instance of CPU. */
const PAUSE_MS = 20;

interface Instance {
  index: number;
  port: number;
  child?: ChildProcess | undefined;
  output: string[];
}

describe('a rolling restart behind HAProxy', () => {
  it('fails no request and loses no payment while every instance is restarted in turn', async () => {
    const database = await createTestDatabase();
    onTestFinished(() => database.drop());
    const tempDir = await mkdtemp(path.join(os.tmpdir(), 'pis-rolling-'));
    onTestFinished(() => rm(tempDir, { recursive: true, force: true }));

    const orm = await openOrm(database.url, { poolMax: 1 });
    const { organizationId } = await createOrganization(orm.em.fork(), 'Rolling Merchant', systemClock);
    const { apiKey } = await createApiKey(
      orm.em.fork(),
      { organizationId, permissions: { read: true, write: true } },
      systemClock,
    );
    await orm.close();

    const instances: Instance[] = [];
    for (let index = 0; index < INSTANCES; index++) {
      instances.push({ index, port: await freePort(), output: [] });
    }
    onTestFinished(() => {
      for (const instance of instances) instance.child?.kill('SIGKILL');
    });
    const start = (instance: Instance) => startInstance(instance, database.url);
    // The first start installs pg-boss's schema; the others then start together.
    await startOnFreePort(instances[0] as Instance, start);
    await Promise.all(instances.slice(1).map((instance) => startOnFreePort(instance, start)));

    const lbPort = await freePort();
    const statsPort = await freePort();
    const lb = await startHaproxy(tempDir, lbPort, statsPort, instances);
    onTestFinished(() => {
      lb.child.kill('SIGKILL');
    });
    const base = `http://127.0.0.1:${lbPort}`;
    await waitUntil(async () => (await serverStates(statsPort)).every((state) => state === 'UP'), 20_000);

    const load = startLoad(base, apiKey);
    await sleep(1_000);
    const drains: number[] = [];
    for (const instance of instances) {
      const signalled = performance.now();
      const child = instance.child as ChildProcess;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      // The health check must start taking it out while it still serves (the drain), not after.
      await waitUntil(async () => (await serverStates(statsPort))[instance.index] !== 'UP', DRAIN_MS);
      const code = await exited;
      drains.push(performance.now() - signalled);
      expect(code, instance.output.join('')).toBe(0);
      await start(instance);
      await waitUntil(async () => (await serverStates(statsPort))[instance.index] === 'UP', 20_000);
      await sleep(500);
    }
    const result = await load.stop();

    // Every payment a create answered for is there, through any instance.
    const unreadable: string[] = [];
    await inParallel(result.created, 8, async (paymentId) => {
      const response = await fetch(`${base}/api/payments/${paymentId}`, { headers: { 'x-api-key': apiKey } });
      if (response.status !== 200) unreadable.push(`${paymentId}: ${response.status}`);
      await response.arrayBuffer();
    });

    const summary =
      `rolling restart: ${result.requests} requests (${result.created.length} creates), ` +
      `${result.failures.length} failed; SIGTERM -> exit ${drains.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(', ')}`;
    process.stdout.write(`${summary}\n`);
    expect(result.failures, `${summary}\nHAProxy:\n${lb.output.join('')}`).toEqual([]);
    expect(unreadable).toEqual([]);
    expect(result.created.length).toBeGreaterThan(50);
    for (const ms of drains) expect(ms).toBeLessThan(DRAIN_MS + SHUTDOWN_TIMEOUT_MS);
  }, 180_000);
});

/**
 * A first start, before HAProxy knows the ports: freePort's port is free when asked but another
 * test running beside this one can bind it before the child does (seen once in CI), so a port
 * taken in between is swapped for another. Restarts keep their port: HAProxy routes to it.
 */
async function startOnFreePort(instance: Instance, start: (instance: Instance) => Promise<void>) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(instance);
    } catch (error) {
      if (attempt === 3 || !String(error).includes('EADDRINUSE')) throw error;
      instance.port = await freePort();
      instance.output = [];
    }
  }
}

async function startInstance(instance: Instance, databaseUrl: string): Promise<void> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      PORT: String(instance.port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${instance.port}`,
      LINK_SIGNING_SECRET: 'rolling-restart-link-secret-0123456789abcdef',
      LOG_LEVEL: 'warn',
      // One key makes every request: its budget is not what this test is about.
      RATE_LIMITS: 'off',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      // Set, so no instance starts `npm start`'s MailDev on its fixed ports; no mail is sent.
      SMTP_URL: 'smtp://127.0.0.1:9',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => {
    instance.output.push(chunk.toString('utf8'));
    if (instance.output.length > 40) instance.output.shift();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  instance.child = child;
  const started = performance.now();
  let last = 'no answer';
  await waitUntil(async () => {
    if (child.exitCode !== null)
      throw new Error(`instance ${instance.index} exited: ${instance.output.join('')}`);
    // Bounded: one probe that hangs must not outlast the deadline.
    const response = await fetch(`http://127.0.0.1:${instance.port}/ready`, {
      signal: AbortSignal.timeout(3_000),
    }).catch((error: unknown) => {
      last = String(error);
      return undefined;
    });
    if (response) last = `${response.status} ${await response.text()}`;
    return response?.status === 200;
  }, 60_000).catch((error: unknown) => {
    throw new Error(
      `instance ${instance.index} not ready (last /ready: ${last}): ${String(error)}\n${instance.output.join('')}`,
    );
  });
  process.stdout.write(
    `instance ${instance.index} ready in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

/**
 * deploy/haproxy.cfg with its two `# test: replaced` lines swapped for this machine (the bind
 * address and one `server` line per instance) and a stats page to read the servers' states from.
 */
async function startHaproxy(tempDir: string, port: number, statsPort: number, instances: Instance[]) {
  const shipped = await readFile(HAPROXY_CFG, 'utf8');
  const servers = instances.map(
    (instance) => `    server api${instance.index} 127.0.0.1:${instance.port} check`,
  );
  let config = shipped
    .replace(/^\s*bind .*# test: replaced$/m, `    bind 127.0.0.1:${port}`)
    .replace(/^\s*server-template .*# test: replaced$/m, servers.join('\n'))
    // No Docker DNS here.
    .replace(/^resolvers docker[\s\S]*?(?=^\S|(?![\s\S]))/m, '');
  expect(config).not.toMatch(/# test: replaced$/m);
  config += `\nfrontend stats\n    bind 127.0.0.1:${statsPort}\n    stats enable\n    stats uri /stats\n`;
  const file = path.join(tempDir, 'haproxy.cfg');
  await writeFile(file, config);
  const output: string[] = [];
  const child = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer) => {
    // Only what went wrong: 5xx answers and sessions that ended abnormally.
    for (const line of chunk.toString('utf8').split('\n')) {
      if (/ (5\d\d|-1) |WARNING|ALERT/.test(line)) output.push(`${line}\n`);
    }
    if (output.length > 60) output.splice(0, output.length - 60);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  await waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${output.join('')}`);
    return (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`).catch(() => undefined))?.ok === true;
  }, 10_000);
  return { child, output };
}

/** The backend's servers' states in instance order (UP, DOWN, "UP 1/2", ...), from HAProxy's CSV. */
async function serverStates(statsPort: number): Promise<string[]> {
  const csv = await (
    await fetch(`http://127.0.0.1:${statsPort}/stats;csv`, { signal: AbortSignal.timeout(3_000) })
  ).text();
  const rows = csv.split('\n').map((line) => line.split(','));
  return rows
    .filter((row) => row[0] === 'api' && row[1]?.startsWith('api'))
    .sort((a, b) => (a[1] ?? '').localeCompare(b[1] ?? ''))
    .map((row) => row[17] ?? '');
}

/** Creates and reads through the load balancer until stopped; every failure is recorded. */
function startLoad(base: string, apiKey: string) {
  let running = true;
  let requests = 0;
  const created: string[] = [];
  const failures: string[] = [];
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const call = async (method: string, url: string, init: RequestInit = {}) => {
    requests++;
    try {
      const response = await fetch(`${base}${url}`, { method, ...init, signal: AbortSignal.timeout(30_000) });
      const body = (await response.json()) as { data?: { paymentId?: string } };
      if (response.status >= 300)
        failures.push(`${method} ${url}: ${response.status} ${JSON.stringify(body)}`);
      return { status: response.status, body };
    } catch (error) {
      failures.push(
        `${method} ${url}: ${error instanceof Error ? `${error.message} ${String(error.cause)}` : String(error)}`,
      );
      return undefined;
    }
  };
  const creating = async (loop: number) => {
    for (let n = 0; running; n++) {
      const answer = await call('POST', '/api/payments', {
        headers: { ...headers, ...(n % 2 === loop % 2 ? { 'idempotency-key': randomUUID() } : {}) },
        body: JSON.stringify({
          amount: { value: '10.00', currency: 'GBP' },
          toAccount: { accountName: 'Rolling Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
          reference: 'rolling',
        }),
      });
      const paymentId = answer?.status === 201 ? answer.body.data?.paymentId : undefined;
      if (paymentId) created.push(paymentId);
      await sleep(PAUSE_MS);
    }
  };
  const reading = async (loop: number) => {
    for (let n = 0; running; n++) {
      const paymentId = created[Math.floor(Math.random() * created.length)];
      if (paymentId && (n + loop) % 3 !== 0) await call('GET', `/api/payments/${paymentId}`, { headers });
      else await call('GET', '/api/payments?limit=5', { headers });
      await sleep(PAUSE_MS);
    }
  };
  const loops = [
    ...Array.from({ length: CREATE_LOOPS }, (_, loop) => creating(loop)),
    ...Array.from({ length: READ_LOOPS }, (_, loop) => reading(loop)),
  ];
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return { requests, created, failures };
    },
  };
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (
      await check().catch((error: unknown) => {
        if (error instanceof Error && error.message.includes('exited')) throw error;
        return false;
      })
    )
      return;
    if (Date.now() > deadline)
      throw new Error(`not within ${timeoutMs} ms: ${check.toString().slice(0, 200)}`);
    await sleep(100);
  }
}

async function inParallel<T>(
  items: readonly T[],
  width: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++] as T);
    }),
  );
}
