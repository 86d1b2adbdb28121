import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startThrowawayCluster } from '../bench/throwaway-cluster.ts';
import { createApiKey } from '../src/auth/api-keys.ts';
import { systemClock } from '../src/clock.ts';
import { freePort } from '../src/db/embedded-postgres.ts';
import { openOrm } from '../src/db/orm.ts';
import { createOrganization } from '../src/organizations/organization-admin.ts';

/**
 * `npm run chaos`: three full service processes (API + worker, as `npm start` runs them) on one
 * Postgres; a few hundred Mock bank timelines approved in waves; one process after another
 * killed with SIGKILL at random moments and restarted. It never reads a payment through the API
 * (a read would catch the payment up and hide a lag): a monitor samples the database every
 * 200 ms for the oldest overdue step, and at the end every payment's stored history is checked.
 * Asserts: 0 lost (every payment COMPLETED in the table), 0 doubled (no status twice in a
 * history), worst database lag under 10 s. Exit 1 otherwise.
 */

const INSTANCES = 3;
const WAVES = 10;
const PER_WAVE = 30;
const WAVE_GAP_MS = 2_000;
/** Timelines complete 3-20 s after approval (steps at 0/10%/40%/100%). */
const MIN_SECONDS = 3;
const MAX_SECONDS = 20;
const KILL_EVERY_MS = [3_000, 6_000] as const;
const RESTART_AFTER_MS = [300, 1_500] as const;
const MAX_LAG_S = 10;
const SERVER_DIR = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

const random = (min: number, max: number) => min + Math.random() * (max - min);
const log = (message: string) => process.stdout.write(`[chaos ${elapsed()}] ${message}\n`);
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;

const throwaway = await startThrowawayCluster('chaos');
const databaseUrl = await throwaway.createDatabase('chaos');

interface Instance {
  index: number;
  port: number;
  child: ChildProcess | undefined;
  stderr: string[];
}
const instances: Instance[] = [];
let failed = false;

try {
  for (let index = 0; index < INSTANCES; index++) {
    instances.push({ index, port: await freePort(), child: undefined, stderr: [] });
  }
  // The first start migrates; the others then start together.
  await start(instances[0] as Instance);
  await Promise.all(instances.slice(1).map(start));
  log(`${INSTANCES} instances up`);

  const orm = await openOrm(databaseUrl, { poolMax: 1 });
  const { organizationId } = await createOrganization(orm.em.fork(), 'Chaos Merchant', systemClock);
  const { apiKey } = await createApiKey(
    orm.em.fork(),
    { organizationId, permissions: { read: true, write: true } },
    systemClock,
  );
  await orm.close();

  const monitor = startMonitor();
  let kills = 0;
  let driving = true;
  const chaos = (async () => {
    while (driving) {
      await sleep(random(...KILL_EVERY_MS));
      if (!driving) break;
      const victim = instances[Math.floor(Math.random() * INSTANCES)] as Instance;
      if (!victim.child) continue;
      victim.child.kill('SIGKILL');
      await new Promise((resolve) => victim.child?.once('exit', resolve));
      victim.child = undefined;
      kills++;
      log(`kill -9 instance ${victim.index} (kill ${kills})`);
      await sleep(random(...RESTART_AFTER_MS));
      await start(victim);
      log(`instance ${victim.index} restarted`);
    }
  })();

  const payments: string[] = [];
  let lastDueAt = 0;
  for (let wave = 0; wave < WAVES; wave++) {
    const batch = await Promise.all(
      Array.from({ length: PER_WAVE }, async () => {
        const seconds = Math.round(random(MIN_SECONDS, MAX_SECONDS));
        const paymentId = await createPayment(apiKey);
        await approve(apiKey, paymentId, seconds);
        lastDueAt = Math.max(lastDueAt, Date.now() + seconds * 1000);
        return paymentId;
      }),
    );
    payments.push(...batch);
    await sleep(WAVE_GAP_MS);
  }
  log(`${payments.length} timelines approved; chaos until the last is due`);
  await sleep(Math.max(0, lastDueAt - Date.now()));
  driving = false;
  await chaos;
  for (const instance of instances) if (!instance.child) await start(instance);

  // Every step is now due: the database must show all of them applied within MAX_LAG_S.
  const caughtUpAt = await waitUntilCaughtUp(MAX_LAG_S * 1000 + 5_000);
  const worstLag = await monitor.stop();
  const { lost, doubled } = await checkHistories(payments);
  const caughtUpAfter = caughtUpAt === undefined ? undefined : (caughtUpAt - lastDueAt) / 1000;

  const ok = lost === 0 && doubled === 0 && worstLag < MAX_LAG_S && caughtUpAt !== undefined;
  failed = !ok;
  process.stdout.write(
    `\nchaos: ${payments.length} payments, ${INSTANCES} instances, ${kills} kills (SIGKILL + restart)\n` +
      `  lost ${lost}, doubled ${doubled}\n` +
      `  worst database lag (oldest overdue step, sampled every 200 ms): ${worstLag.toFixed(2)} s (limit ${MAX_LAG_S} s)\n` +
      `  last step due -> database caught up: ${caughtUpAfter === undefined ? 'NEVER' : `${caughtUpAfter.toFixed(2)} s`}\n` +
      `  ${ok ? 'PASSED' : 'FAILED'} in ${elapsed()}\n`,
  );
} catch (error) {
  failed = true;
  process.stderr.write(
    `chaos run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  for (const instance of instances) {
    if (instance.stderr.length > 0) {
      process.stderr.write(
        `--- instance ${instance.index} stderr (last lines)\n${instance.stderr.join('')}\n`,
      );
    }
  }
} finally {
  for (const instance of instances) instance.child?.kill('SIGKILL');
  await throwaway.stop();
}
process.exit(failed ? 1 : 0);

/** Starts `npm start`'s entry point (API + worker) on the instance's port; resolves once it answers. */
async function start(instance: Instance): Promise<void> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: SERVER_DIR,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: databaseUrl,
      PORT: String(instance.port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${instance.port}`,
      LINK_SIGNING_SECRET: 'chaos-link-signing-secret-0123456789abcdef',
      LOG_LEVEL: 'warn',
      RATE_LIMITS: 'off',
      RUN_WORKER: 'true',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    instance.stderr.push(chunk.toString('utf8'));
    if (instance.stderr.length > 20) instance.stderr.shift();
  });
  instance.child = child;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`instance ${instance.index} exited with ${child.exitCode}`);
    try {
      const response = await fetch(`http://127.0.0.1:${instance.port}/api/openapi.json`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`instance ${instance.index} did not start within 30 s`);
}

/** Sends to a live instance, trying the next one when a process is down or dies mid-request. */
async function send(
  method: string,
  url: string,
  apiKey: string,
  body: unknown,
  extra: Record<string, string> = {},
) {
  for (let attempt = 0; attempt < 40; attempt++) {
    const live = instances.filter((instance) => instance.child);
    const instance = live[Math.floor(Math.random() * live.length)];
    if (!instance) {
      await sleep(100);
      continue;
    }
    try {
      const response = await fetch(`http://127.0.0.1:${instance.port}${url}`, {
        method,
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...extra },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const json = (await response.json()) as { success: boolean; data?: unknown; error?: { code?: string } };
      if (response.status >= 500) throw new Error(`HTTP ${response.status}`);
      return { status: response.status, json };
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${method} ${url}: no instance answered`);
}

async function createPayment(apiKey: string): Promise<string> {
  // The Idempotency-Key makes a retry after a killed request return the same payment. A claim
  // left by a killed instance answers 409 IN_PROGRESS until it is abandoned (15 s): retry, as a
  // merchant would.
  const idempotencyKey = randomUUID();
  const body = {
    amount: { value: '12.34', currency: 'GBP' },
    toAccount: { accountName: 'Chaos Ltd', sortCode: '04-00-04', accountNumber: '12345678' },
    reference: 'chaos',
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { status, json } = await send('POST', '/api/payments', apiKey, body, {
      'idempotency-key': idempotencyKey,
    });
    if (status === 201) return (json.data as { paymentId: string }).paymentId;
    if (status !== 409 || json.error?.code !== 'IDEMPOTENCY_KEY_IN_PROGRESS' || Date.now() > deadline) {
      throw new Error(`create answered ${status}: ${JSON.stringify(json)}`);
    }
    await sleep(1_000);
  }
}

async function approve(apiKey: string, paymentId: string, completeAfterSeconds: number): Promise<void> {
  const { status, json } = await send('POST', `/api/payments/${paymentId}/mock-bank/approve`, apiKey, {
    completeAfterSeconds,
  });
  // 409: an earlier attempt was applied before its process died.
  if (status !== 200 && !(status === 409 && json.error?.code === 'PAYMENT_ALREADY_DECIDED')) {
    throw new Error(`approve answered ${status}: ${JSON.stringify(json)}`);
  }
}

/** Samples the oldest overdue step in the database (its own clock) every 200 ms. */
function startMonitor() {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  let worst = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ lag: number | null }>(
        'select extract(epoch from now() - min(next_due_at))::float8 as lag from payment where next_due_at <= now()',
      );
      worst = Math.max(worst, rows[0]?.lag ?? 0);
      await sleep(200);
    }
    await client.end();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return worst;
    },
  };
}

/** Resolves with the time when no step is overdue in the database, or undefined after `timeoutMs`. */
async function waitUntilCaughtUp(timeoutMs: number): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ pending: string }>(
        `select count(*) as pending from payment where status <> 'COMPLETED'`,
      );
      if (Number(rows[0]?.pending) === 0) return Date.now();
      await sleep(100);
    }
    return undefined;
  } finally {
    await client.end();
  }
}

/** Lost: not COMPLETED in the table. Doubled: a status twice in one payment's history, or a gap in `seq`. */
async function checkHistories(paymentIds: string[]): Promise<{ lost: number; doubled: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: statuses } = await client.query<{ id: string; status: string }>(
      'select id, status from payment where id = any($1)',
      [paymentIds],
    );
    const lost = paymentIds.length - statuses.filter((row) => row.status === 'COMPLETED').length;
    const { rows: doubled } = await client.query<{ count: string }>(
      `select count(*) as count from (
         select payment_id from payment_history where payment_id = any($1)
         group by payment_id
         having count(*) <> count(distinct status) or max(seq) <> count(*)
       ) d`,
      [paymentIds],
    );
    return { lost, doubled: Number(doubled[0]?.count) };
  } finally {
    await client.end();
  }
}
