import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createApiKey } from '../src/auth/api-keys.ts';
import { systemClock } from '../src/clock.ts';
import { openOrm } from '../src/db/orm.ts';
import { createOrganization } from '../src/organizations/organization-admin.ts';
import { cpuSince, readCpu } from './cpu-meter.ts';
import type { Goal } from './goals.ts';
import type { ThrowawayCluster } from './throwaway-cluster.ts';

/**
 * The service as `npm start` runs it in a deployment (one process, API and worker, `SMTP_URL`
 * set so no dev inbox), in a process of its own, measured under a merchant's realistic mix
 * (issue 32 items 4 and 7). Each of SESSIONS merchants' customers in turn:
 * - the merchant creates a payment (API_ONLY, the Mock bank);
 * - the customer approves it at the Mock bank (`completeAfterSeconds: 4`: the worker takes it
 *   through AUTHORIZED, SUBMITTED, ACCEPTED to COMPLETED);
 * - the merchant polls it ten times, with `Prefer: wait` and the ETag while it is not finished
 *   (the SDK's way), a plain read once it is;
 * - and lists its payments once.
 * Printed: the process's resident memory idle and at the end (the budgets), payments a second,
 * the CPU one payment's whole mix costs Postgres (so the payments a second one Postgres core
 * carries) and the database's growth per million payments.
 */

/** Customers at once: enough that the service, not the customers' waits, sets the pace. */
const SESSIONS = 64;
const POLLS = 10;
const WAIT_SECONDS = 10;
const IDLE_SETTLE_MS = 15_000;
export const IDLE_RSS_BUDGET_MB = 150;
export const LOADED_RSS_BUDGET_MB = 250;
const FINISHED = new Set(['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED']);
const SERVER_MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

export interface MixedLoadResult {
  minutes: number;
  idleRssMb: number;
  endRssMb: number;
  peakRssMb: number;
  payments: number;
  completed: number;
  requests: number;
  failedRequests: number;
  /** Postgres CPU per payment beyond what it spends idle (below). */
  postgresMicrosPerPayment: number;
  /** Cores Postgres keeps busy with nobody calling (the workers' polls, pg-boss, housekeeping). */
  idlePostgresCpuShare: number;
  nodeMicrosPerPayment: number;
  /** Database growth per payment, bytes, by table (indexes and TOAST included). */
  bytesPerPayment: Record<string, number>;
}

export async function measureMixedLoad(
  throwaway: ThrowawayCluster,
  minutes: number,
): Promise<MixedLoadResult> {
  const databaseUrl = await throwaway.createDatabase('mixed');
  // A start after the first of this code, as a deployment restarts: the first fills Node's compile
  // cache (lifecycle/memory-settings.ts), without which the type stripper stays resident.
  const first = await startServer(databaseUrl);
  await stopServer(first.child);
  const { child, url } = await startServer(databaseUrl);
  try {
    const headers = { 'x-api-key': await merchantKey(databaseUrl), 'content-type': 'application/json' };
    const postgresDataDir = path.join(throwaway.dir, 'postgres');
    // Postgres's own idle work (the workers' polls, pg-boss, autovacuum, the WAL writer) over the
    // settling time: taken off the load's CPU, so a payment's cost is what it adds.
    const idleFrom = await readCpu(postgresDataDir);
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
    const idlePostgresMicrosPerMs =
      cpuSince(idleFrom, await readCpu(postgresDataDir)).postgresMicros / (performance.now() - idleStarted);
    const idleRssMb = await rssMb(child);
    const sizesBefore = await tableSizes(databaseUrl);
    const cpuBefore = await readCpu(postgresDataDir);
    const loadStarted = performance.now();
    const childBefore = await childCpuMicros(child);
    const tally = { payments: 0, completed: 0, requests: 0, failed: 0, peakRssMb: idleRssMb };
    const until = Date.now() + minutes * 60_000;
    const sampler = setInterval(() => {
      void rssMb(child).then((mb) => {
        tally.peakRssMb = Math.max(tally.peakRssMb, mb);
      });
    }, 5_000);
    await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        while (Date.now() < until) await onePayment(url, headers, tally);
      }),
    );
    clearInterval(sampler);
    const endRssMb = await rssMb(child);
    const { postgresMicros } = cpuSince(cpuBefore, await readCpu(postgresDataDir));
    const idlePostgresMicros = idlePostgresMicrosPerMs * (performance.now() - loadStarted);
    const nodeMicros = (await childCpuMicros(child)) - childBefore;
    const sizesAfter = await tableSizes(databaseUrl);
    const payments = Math.max(tally.payments, 1);
    return {
      minutes,
      idleRssMb,
      endRssMb,
      peakRssMb: tally.peakRssMb,
      payments: tally.payments,
      completed: tally.completed,
      requests: tally.requests,
      failedRequests: tally.failed,
      postgresMicrosPerPayment: Math.max(0, postgresMicros - idlePostgresMicros) / payments,
      idlePostgresCpuShare: idlePostgresMicrosPerMs / 1000,
      nodeMicrosPerPayment: nodeMicros / payments,
      bytesPerPayment: Object.fromEntries(
        Object.entries(sizesAfter).map(([table, bytes]) => [
          table,
          (bytes - (sizesBefore[table] ?? 0)) / payments,
        ]),
      ),
    };
  } finally {
    await stopServer(child);
  }
}

/** The service as a deployment runs it, on a free port; resolves once it answers. */
async function startServer(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER_MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      LINK_SIGNING_SECRET: randomBytes(32).toString('base64url'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      // A deployment's shape: mail goes out through SMTP (none is sent here), no dev inbox.
      SMTP_URL: 'smtp://127.0.0.1:9',
      // The Mock bank only, as on a clean clone: a checkout's sandbox-bank client files
      // (.data/sandbox-bank, from npm start) would load the real providers' modules.
      OBIE: 'off',
      NEXTGENPSD2: 'off',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilUp(url, child);
  } catch (error) {
    await stopServer(child);
    throw error;
  }
  return { child, url };
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function onePayment(
  url: string,
  headers: Record<string, string>,
  tally: { payments: number; completed: number; requests: number; failed: number },
): Promise<void> {
  const call = async (pathname: string, init: RequestInit = {}) => {
    tally.requests++;
    const response = await fetch(`${url}${pathname}`, init);
    const body = await response.text();
    if (response.status >= 400) tally.failed++;
    return { response, body };
  };
  const created = await call('/api/payments', {
    method: 'POST',
    headers,
    body: JSON.stringify({
      amount: { value: '10.50', currency: 'GBP' },
      toAccount: { accountName: 'Mix Ltd', sortCode: '040004', accountNumber: '12345678' },
      reference: 'mixed load',
    }),
  });
  if (created.response.status !== 201) return;
  tally.payments++;
  const payment = (JSON.parse(created.body) as { data: { paymentId: string; redirectUrl?: string } }).data;
  const token = payment.redirectUrl?.split('/mock-bank/')[1]?.split(/[?#]/)[0];
  if (token) {
    await call('/trpc/pages.approve', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: decodeURIComponent(token), scenario: { completeAfterSeconds: 4 } }),
    });
  }
  let etag: string | null = null;
  let status = '';
  for (let poll = 0; poll < POLLS; poll++) {
    const waiting = etag !== null && !FINISHED.has(status);
    const read = await call(`/api/payments/${payment.paymentId}`, {
      headers: {
        'x-api-key': headers['x-api-key'] as string,
        ...(waiting ? { 'if-none-match': etag as string, prefer: `wait=${WAIT_SECONDS}` } : {}),
      },
    });
    etag = read.response.headers.get('etag') ?? etag;
    if (read.response.status === 200)
      status = (JSON.parse(read.body) as { data: { status: string } }).data.status;
  }
  if (status === 'COMPLETED') tally.completed++;
  await call('/api/payments?limit=20', { headers: { 'x-api-key': headers['x-api-key'] as string } });
}

async function merchantKey(databaseUrl: string): Promise<string> {
  const orm = await openOrm(databaseUrl, { poolMax: 1 });
  try {
    const { organizationId } = await createOrganization(orm.em.fork(), 'Mixed Load Merchant', systemClock);
    const { apiKey } = await createApiKey(
      orm.em.fork(),
      { organizationId, permissions: { read: true, write: true } },
      systemClock,
    );
    return apiKey;
  } finally {
    await orm.close();
  }
}

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('the service did not start in 2 minutes');
}

async function rssMb(child: ChildProcess): Promise<number> {
  const status = await readFile(`/proc/${child.pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function childCpuMicros(child: ChildProcess): Promise<number> {
  const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

async function tableSizes(databaseUrl: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; bytes: string }>(
      `select c.relname as name, pg_total_relation_size(c.oid) as bytes from pg_class c
        join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname in ('public', 'pgboss')
       union all select 'whole database', pg_database_size(current_database())`,
    );
    return Object.fromEntries(rows.map((row) => [row.name, Number(row.bytes)]));
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function printMixedLoad(result: MixedLoadResult): void {
  const perSecond = result.payments / (result.minutes * 60);
  const postgresMs = result.postgresMicrosPerPayment / 1000;
  console.log(
    `\nmixed load, ${result.minutes} min, ${SESSIONS} customers at once, one process with the worker (SMTP_URL set): ` +
      `${result.payments.toLocaleString('en')} payments (${perSecond.toFixed(1)}/s; ${result.completed.toLocaleString('en')} read COMPLETED), ` +
      `${result.requests.toLocaleString('en')} requests, ${result.failedRequests} failed`,
  );
  console.log(
    `  per payment (create, approval, ${POLLS} polls with Prefer: wait, 1 list, the worker's steps): ` +
      `Postgres ${postgresMs.toFixed(2)} ms CPU beyond its idle ${(result.idlePostgresCpuShare * 100).toFixed(1)}% of a core, Node ${(result.nodeMicrosPerPayment / 1000).toFixed(2)} ms CPU ` +
      `-> one Postgres core carries ~${Math.floor(1000 / postgresMs)} payments/s of this mix`,
  );
  console.log(
    `  resident memory: idle ${result.idleRssMb.toFixed(0)} MB, peak ${result.peakRssMb.toFixed(0)} MB, at the end ${result.endRssMb.toFixed(0)} MB`,
  );
  const growth = Object.entries(result.bytesPerPayment)
    .filter(([, bytes]) => bytes > 20)
    .sort((a, b) => b[1] - a[1])
    .map(([table, bytes]) => `${table} ${((bytes * 1_000_000) / 1024 ** 3).toFixed(2)} GB`)
    .join(', ');
  console.log(`  database growth per million payments of this mix: ${growth}`);
}

export function mixedLoadGoals(result: MixedLoadResult): Goal[] {
  return [
    {
      figure: 'resident memory idle (API + worker)',
      value: `${result.idleRssMb.toFixed(0)} MB`,
      goal: `<= ${IDLE_RSS_BUDGET_MB} MB`,
      met: result.idleRssMb <= IDLE_RSS_BUDGET_MB,
    },
    {
      figure: `resident memory after ${result.minutes} min of mixed load`,
      value: `${result.endRssMb.toFixed(0)} MB (peak ${result.peakRssMb.toFixed(0)})`,
      goal: `<= ${LOADED_RSS_BUDGET_MB} MB`,
      met: result.endRssMb <= LOADED_RSS_BUDGET_MB,
    },
    {
      figure: 'mixed load: failed requests',
      value: String(result.failedRequests),
      goal: '0',
      met: result.failedRequests === 0,
    },
  ];
}
