import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PaymentsClient } from '../../client-sdk/src/index.ts';
import type { Service } from './service.ts';
import { percentile } from './statistics.ts';

/**
 * Issue 10's measures (`npm run bench`, or `-- --live-only`):
 * 1. Wake latency: 1,000 clients wait at once (If-None-Match + Prefer: wait), half on this
 *    process, half on a second process on the same database; each payment is then approved
 *    (instant -> COMPLETED) through either process; latency = the waiter's answer minus the
 *    approval's answer (after its commit; so an upper bound on commit -> answer is "from sent").
 * 2. Memory and connections of 10,000 waiting clients on the second process.
 * 3. The reads an SDK waitForFinalStatus makes for a `realistic` payment (60 s), with and without
 *    waiting (the latter: the same server with Prefer stripped, i.e. any spec-only server).
 */
export interface LiveReadsResult {
  waiters: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  p99FromSentMs: number;
  wrong: number;
  memory: {
    waiters: number;
    rssMb: number;
    heapMb: number;
    perWaiterKb: number;
    connections: number;
    idleConnections: number;
  };
  realisticReads: { waiting: number; polling: number; waitingSeconds: number; pollingSeconds: number };
}

const WAITERS = 1_000;
// Node's fetch (undici) holds one socket per waiting request; 10,000 sockets stay under `ulimit -n`.
const MEMORY_WAITERS = 10_000;
const MEMORY_PAYMENTS = 100;
const APPROVE_CONCURRENCY = 10;

export async function measureLiveReads(
  service: Service,
  serviceUrl: string,
  databaseUrl: string,
  dataDir: string,
): Promise<LiveReadsResult> {
  const second = await startSecondProcess(databaseUrl, dataDir);
  try {
    const headers = { 'x-api-key': service.apiKey };
    const urls = [serviceUrl, second.url];
    const ids = await createPayments(serviceUrl, headers, WAITERS);
    const etags = await Promise.all(ids.map((id) => etagOf(serviceUrl, headers, id)));

    // 1,000 waiters, alternating between the processes, opened in batches (a burst of 1,000
    // connects at once would measure the accept queue and the pool, not waiting).
    const answered = new Map<string, { at: number; status: string }>();
    const waits: Promise<void>[] = [];
    const open = (index: number) => {
      const id = ids[index] as string;
      waits.push(
        (async () => {
          const response = await fetch(`${urls[index % 2]}/api/payments/${id}`, {
            headers: { ...headers, 'if-none-match': etags[index] as string, prefer: 'wait=60' },
          });
          const body = (await response.json()) as { data: { status: string } };
          answered.set(id, { at: performance.now(), status: body.data.status });
        })(),
      );
    };
    await openInBatches(WAITERS, open, async () => service.waiters.waiting + (await second.waiting()));

    const approvals = new Map<string, { sent: number; answered: number }>();
    let next = 0;
    await Promise.all(
      Array.from({ length: APPROVE_CONCURRENCY }, async (_, worker) => {
        for (let index = next++; index < ids.length; index = next++) {
          const id = ids[index] as string;
          const sent = performance.now();
          const response = await fetch(`${urls[(index + worker) % 2]}/api/payments/${id}/mock-bank/approve`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: '{}',
          });
          await response.arrayBuffer();
          approvals.set(id, { sent, answered: performance.now() });
        }
      }),
    );
    await Promise.all(waits);
    const latencies = ids.map((id) =>
      Math.max(0, (answered.get(id)?.at ?? 0) - (approvals.get(id)?.answered ?? 0)),
    );
    const fromSent = ids.map((id) => (answered.get(id)?.at ?? 0) - (approvals.get(id)?.sent ?? 0));
    const wrong = ids.filter((id) => answered.get(id)?.status !== 'COMPLETED').length;

    const memory = await measureMemory(second, headers, databaseUrl);
    const realisticReads = await countRealisticReads(serviceUrl, service.apiKey);
    return {
      waiters: WAITERS,
      p50Ms: round(percentile(latencies, 0.5)),
      p99Ms: round(percentile(latencies, 0.99)),
      maxMs: round(percentile(latencies, 1)),
      p99FromSentMs: round(percentile(fromSent, 0.99)),
      wrong,
      memory,
      realisticReads,
    };
  } finally {
    await second.stop();
  }
}

/** Also `bench/wait-memory.ts`'s: RSS and heap of `waiters` waiting clients on the second process. */
export async function measureMemory(
  second: SecondProcess,
  headers: Record<string, string>,
  databaseUrl: string,
  waiters = MEMORY_WAITERS,
): Promise<LiveReadsResult['memory']> {
  const ids = await createPayments(second.url, headers, MEMORY_PAYMENTS);
  const etags = await Promise.all(ids.map((id) => etagOf(second.url, headers, id)));
  const before = await second.stats();
  // Waits of 60 s that nobody ends early: measured while all are open, then shut down by a change.
  const waits: Promise<void>[] = [];
  await openInBatches(
    waiters,
    (index) => {
      waits.push(
        (async () => {
          const response = await fetch(`${second.url}/api/payments/${ids[index % MEMORY_PAYMENTS]}`, {
            headers: {
              ...headers,
              'if-none-match': etags[index % MEMORY_PAYMENTS] as string,
              prefer: 'wait=60',
            },
          });
          await response.arrayBuffer();
        })(),
      );
    },
    () => second.waiting(),
  );
  const during = await second.stats();
  const connections = await connectionsTo(databaseUrl);
  // End them: cancel each payment (100 changes wake 10,000 waiters).
  for (const id of ids) {
    const response = await fetch(`${second.url}/api/payments/${id}/cancel`, { method: 'POST', headers });
    await response.arrayBuffer();
  }
  await Promise.all(waits);
  return {
    waiters: during.waiting,
    rssMb: round((during.rss - before.rss) / 2 ** 20),
    heapMb: round((during.heapUsed - before.heapUsed) / 2 ** 20),
    perWaiterKb: round((during.rss - before.rss) / 1024 / waiters),
    ...connections,
  };
}

/** Connections to the database (every process of the bench), and how many are idle. */
async function connectionsTo(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ total: string; idle: string }>(
      `select count(*) as total, count(*) filter (where state = 'idle') as idle
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return { connections: Number(rows[0]?.total), idleConnections: Number(rows[0]?.idle) };
  } finally {
    await client.end();
  }
}

/** SDK waitForFinalStatus on a `realistic` payment (COMPLETED at 60 s), with and without waiting, at once. */
async function countRealisticReads(serviceUrl: string, apiKey: string) {
  const run = async (waiting: boolean) => {
    let reads = 0;
    const client = new PaymentsClient({
      apiKey,
      baseUrl: serviceUrl,
      fetch: (input, init) => {
        if (init.method === 'GET' && /\/api\/payments\/pay_/.test(input)) reads += 1;
        // Without waiting: a server that ignores Prefer (any spec-only server).
        const headers = new Headers(init.headers);
        if (!waiting) headers.delete('prefer');
        return fetch(input, { ...init, headers });
      },
    });
    const { paymentId } = await client.payments.create({
      toAccount: { accountName: 'Bench Ltd', sortCode: '040004', accountNumber: '12345678' },
      amount: { value: '10.50', currency: 'GBP' },
      reference: 'bench live',
    });
    await client.sandbox.approve(paymentId, { preset: 'realistic' });
    const started = performance.now();
    await client.payments.waitForFinalStatus(paymentId);
    return { reads, seconds: round((performance.now() - started) / 1000) };
  };
  const [waiting, polling] = await Promise.all([run(true), run(false)]);
  return {
    waiting: waiting.reads,
    polling: polling.reads,
    waitingSeconds: waiting.seconds,
    pollingSeconds: polling.seconds,
  };
}

export interface SecondProcess {
  url: string;
  stats(): Promise<{ rss: number; heapUsed: number; waiting: number }>;
  waiting(): Promise<number>;
  stop(): Promise<void>;
}

export async function startSecondProcess(databaseUrl: string, dataDir: string): Promise<SecondProcess> {
  const script = fileURLToPath(new URL('./live-process.ts', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', script, databaseUrl, dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const pending: Array<(line: string) => void> = [];
  let url: string | undefined;
  const listening = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`second process exited (${code})`)));
    lines.on('line', (line) => {
      if (line.startsWith('LISTENING ')) {
        url = line.slice('LISTENING '.length);
        resolve();
      } else if (line.startsWith('STATS ')) pending.shift()?.(line.slice('STATS '.length));
    });
  });
  await listening;
  return {
    url: url as string,
    stats: () =>
      new Promise((resolve) => {
        pending.push((json) => resolve(JSON.parse(json)));
        child.stdin?.write('stats\n');
      }),
    waiting: () =>
      new Promise((resolve) => {
        pending.push((json) => resolve((JSON.parse(json) as { waiting: number }).waiting));
        child.stdin?.write('count\n');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin?.write('stop\n');
      }),
  };
}

async function createPayments(
  url: string,
  headers: Record<string, string>,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  let made = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (made < count) {
        made += 1;
        const response = await fetch(`${url}/api/payments`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({
            amount: { value: '10.50', currency: 'GBP' },
            toAccount: { accountName: 'Bench Ltd', sortCode: '040004', accountNumber: '12345678' },
            reference: 'bench live',
          }),
        });
        ids.push(((await response.json()) as { data: { paymentId: string } }).data.paymentId);
      }
    }),
  );
  return ids;
}

async function etagOf(url: string, headers: Record<string, string>, id: string): Promise<string> {
  const response = await fetch(`${url}/api/payments/${id}`, { headers });
  await response.arrayBuffer();
  return response.headers.get('etag') as string;
}

const BATCH = 500;

/** Opens `count` waits, BATCH at a time, each batch once the previous ones are all waiting. */
async function openInBatches(count: number, open: (index: number) => void, waiting: () => Promise<number>) {
  for (let index = 0; index < count; ) {
    const end = Math.min(count, index + BATCH);
    for (; index < end; index += 1) open(index);
    await until(
      async () => (await waiting()) >= end,
      60_000,
      async () => `${await waiting()} of ${end} waiting`,
    );
  }
}

async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
  state: () => Promise<string> = async () => '',
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) {
      throw new Error(`live-reads bench: timed out waiting for the waiters (${await state()})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const round = (value: number) => Math.round(value * 10) / 10;
