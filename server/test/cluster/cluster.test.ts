import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/auth/api-keys.ts';
import {
  backup,
  type ClusterStatus,
  down,
  etcdPid,
  restore,
  startNode,
  status,
  switchover,
  up,
} from '../../src/cli/cluster/cluster.ts';
import { markedProcesses } from '../../src/cli/cluster/processes.ts';
import { systemClock } from '../../src/clock.ts';
import { openOrm } from '../../src/db/orm.ts';
import { ABANDONED_CLAIM_MS } from '../../src/payments/idempotency.ts';
import {
  type Answer,
  CREATE_BODY,
  type LoadResult,
  longestGap,
  longestRetry,
  startLoad,
  windowAfter,
} from './load.ts';

/**
 * Issue 30's proofs on a real cluster made by the cluster tool (etcd, three PostgreSQL 15 nodes
 * under Patroni in synchronous mode, HAProxy to the leader, pgBackRest, two service instances
 * behind deploy/haproxy.cfg): a point-in-time restore holds exactly the payments acknowledged
 * before its instant; kill -9 of the leader's Postgres and Patroni under load loses no payment
 * answered 201, doubles none and stops no timeline; a planned switchover likewise. The windows
 * are printed (docs/decisions/080-database-cluster.md keeps the figures).
 */

const REPO = path.resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const REQUEST_TIMEOUT_MS = 10_000;
const run = promisify(execFile);
const say = (line: string) => process.stdout.write(`[cluster] ${line}\n`);

/**
 * What Patroni and the database's HAProxy logged from `since` on: leadership, failsafe and DCS
 * lines of each member (their timestamps are this machine's UTC), and HAProxy's server changes.
 */
async function clusterLogSince(since: number): Promise<string> {
  // "Request failed to pgN: POST ..." is a member that did not answer the leader's failsafe call.
  const SAYS_WHO_LEADS = /failsafe|demot|promot|leader|Got response|Request failed|DCS|\block\b/i;
  const lines: string[] = [];
  for (const node of ['pg1', 'pg2', 'pg3']) {
    const log = await readFile(path.join(dir, 'log', `${node}.log`), 'utf8').catch(() => '');
    for (const line of log.split('\n')) {
      const stamp = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d),(\d{3}) /.exec(line);
      const at = stamp ? Date.parse(`${stamp[1]}T${stamp[2]}.${stamp[3]}Z`) : Number.NaN;
      if (at >= since && SAYS_WHO_LEADS.test(line)) {
        lines.push(`${node} ${line}`);
      }
    }
  }
  const haproxy = await readFile(path.join(dir, 'log', 'database-haproxy.log'), 'utf8').catch(() => '');
  return [...lines.sort((a, b) => a.slice(4).localeCompare(b.slice(4))), 'database HAProxy:', haproxy].join(
    '\n',
  );
}

let dir: string;
let cluster: ClusterStatus;
const restored: string[] = [];

beforeAll(async () => {
  // Short: Postgres's socket lives under DIR.
  dir = await mkdtemp('/tmp/pis-cluster-');
  // One key makes every request: its budget is not what these tests are about.
  process.env.RATE_LIMITS = 'off';
  process.env.LOG_LEVEL = 'warn';
  const started = performance.now();
  cluster = await up(dir, {}, () => {});
  say(`up in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}, 240_000);

afterAll(async () => {
  for (const into of restored) await down(into, () => {}).catch(() => {});
  if (dir) await down(dir, () => {});
  // Nothing left behind: no process carries the cluster's mark any more.
  const left = [
    ...(dir ? await markedProcesses(dir) : []),
    ...(await Promise.all(restored.map(markedProcesses))).flat(),
  ];
  // CLUSTER_KEEP=1 keeps DIR (its logs in DIR/log) to look at after a failure.
  if (process.env.CLUSTER_KEEP !== '1') {
    for (const folder of [dir, ...restored]) if (folder) await rm(folder, { recursive: true, force: true });
  }
  expect(left.map((p) => p.command)).toEqual([]);
}, 120_000);

const appDatabase = () => cluster.databaseUrl;

async function rows<Row>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

function summary(answers: Answer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const label = `${a.kind} ${a.status}${a.code ? ` ${a.code}` : ''}`;
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts].map(([label, n]) => `${label}: ${n}`).join(', ');
}

/** The status once the cluster is whole again: a leader, a synchronous standby and a replica. */
async function whole(): Promise<ClusterStatus> {
  let now = await status(dir);
  for (let waited = 0; waited < 60_000; waited += 500) {
    if (
      now.nodes
        .map((n) => n.role)
        .sort()
        .join() === 'leader,replica,sync_standby'
    )
      return now;
    await sleep(500);
    now = await status(dir);
  }
  throw new Error(`the cluster is not whole: ${JSON.stringify(now.nodes)}`);
}

/** What every cluster test asserts of a load: nothing lost, nothing doubled, only 201/200/503. */
async function expectNothingLostOrDoubled(result: LoadResult) {
  const doubled = [...result.createdByKey].filter(([, ids]) => ids.size > 1);
  expect(doubled, 'a key answered with two payments').toEqual([]);
  const answered = [...result.createdByKey.values()].map((ids) => [...ids][0] as string);
  const stored = await rows<{ id: string }>(
    appDatabase(),
    'select id from payment where organization_id = $1 and id = any($2)',
    [cluster.organizationId, answered],
  );
  const lost = answered.filter((id) => !stored.some((row) => row.id === id));
  expect(lost, 'payments answered 201 and not in the database').toEqual([]);
  // Every 5xx is the contract's 503 with Retry-After (never a 500), and nothing hung.
  const bad = result.answers.filter(
    (a) =>
      (a.status >= 500 && !(a.status === 503 && a.code === 'SERVICE_UNAVAILABLE' && a.retryAfter)) ||
      (a.status === 0 && a.kind !== 'sdk-create'),
  );
  expect(bad.slice(0, 5), summary(result.answers)).toEqual([]);
  const slowest = Math.max(
    ...result.answers.filter((a) => a.kind !== 'sdk-create').map((a) => a.answeredAt - a.sentAt),
  );
  expect(slowest).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
  expect(result.unfinished).toEqual([]);
  return { answered, slowest };
}

/**
 * A payment, a waiting read on it through each instance (`Prefer: wait` with its ETag), then its
 * approval: both reads must answer within 3 s, which only a LISTEN on the current leader does.
 */
async function expectWaitingReadsWake() {
  const headers = { 'content-type': 'application/json', 'x-api-key': cluster.apiKey };
  const created = await fetch(`${cluster.url}/api/payments`, {
    method: 'POST',
    headers,
    body: JSON.stringify(CREATE_BODY),
  });
  expect(created.status).toBe(201);
  const { paymentId } = ((await created.json()) as { data: { paymentId: string } }).data;
  const reads = cluster.instances.map(async (instance) => {
    const url = `http://127.0.0.1:${instance.port}/api/payments/${paymentId}`;
    const first = await fetch(url, { headers });
    await first.arrayBuffer();
    const etag = first.headers.get('etag') ?? '';
    const started = performance.now();
    const waited = await fetch(url, { headers: { ...headers, 'if-none-match': etag, prefer: 'wait=20' } });
    const body = (await waited.json()) as { data: { status: string } };
    return { status: body.data.status, seconds: (performance.now() - started) / 1000, started };
  });
  await sleep(1_000);
  const approvedAt = performance.now();
  const approval = await fetch(`${cluster.url}/api/payments/${paymentId}/mock-bank/approve`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ completeAfterSeconds: 30 }),
  });
  expect(approval.status).toBe(200);
  for (const read of await Promise.all(reads)) {
    expect(read.status).not.toBe('AUTHORIZING');
    expect((read.started + read.seconds * 1000 - approvedAt) / 1000).toBeLessThan(3);
  }
}

/**
 * A key used through each instance (so each caches it), then revoked: each instance refuses it
 * within 2 s (its cache is dropped by the `api_key_changed` channel it listens to again, or not
 * trusted while it does not): never a stale answer after the failover.
 */
async function expectRevocationHeard() {
  const orm = await openOrm(cluster.databaseUrl, { poolMax: 1 });
  try {
    const { apiKey, apiKeyId } = await createApiKey(
      orm.em.fork(),
      { organizationId: cluster.organizationId, permissions: { read: true, write: true } },
      systemClock,
    );
    // A create: with RATE_LIMITS=off it runs no statement for its key, so it trusts the cache.
    const read = (port: number) =>
      fetch(`http://127.0.0.1:${port}/api/payments`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(CREATE_BODY),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    for (const instance of cluster.instances) expect(await read(instance.port)).toBe(201);
    await revokeApiKey(orm.em.fork(), { apiKeyId }, systemClock);
    const revokedAt = performance.now();
    for (const instance of cluster.instances) {
      while ((await read(instance.port)) !== 401) {
        expect(performance.now() - revokedAt).toBeLessThan(2_000);
        await sleep(50);
      }
    }
  } finally {
    await orm.close();
  }
}

describe('a PostgreSQL cluster under the service (issue 30)', () => {
  it('prints the cluster as `cluster status` from the command line', async () => {
    const { stdout } = await run('npm', ['run', '-s', 'cluster', '--', 'status', dir], { cwd: REPO });
    const printed = JSON.parse(stdout) as ClusterStatus;
    expect(printed).toEqual(cluster);
    expect(printed.apiKey).toMatch(/^pis_test_/);
    expect(printed.organizationId).toMatch(/^org_/);
    expect(printed.nodes.map((n) => n.role).sort()).toEqual(['leader', 'replica', 'sync_standby']);
    expect(printed.instances).toHaveLength(2);
    // A second `up` on the same DIR refuses in one line and starts nothing.
    const second = await run('npm', ['run', '-s', 'cluster', '--', 'up', dir], { cwd: REPO }).catch((e) => e);
    expect(second.code).toBe(1);
    expect(second.stderr.trim()).toMatch(/^error: .* is in use/);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    // A port taken (here the front door's): one line naming it, and nothing made.
    const port = new URL(cluster.url).port;
    const elsewhere = `${dir}-port`;
    const taken = await run('npm', ['run', '-s', 'cluster', '--', 'up', elsewhere, '--port', port], {
      cwd: REPO,
    }).catch((e) => e);
    expect(taken.code).toBe(1);
    expect(taken.stderr.trim()).toBe(`error: port ${port} is taken`);
    expect(existsSync(elsewhere)).toBe(false);
  }, 60_000);

  it('restores to an instant exactly the payments acknowledged before it', async () => {
    const taken = await backup(dir, () => {});
    expect(taken.backup).toMatch(/F$/);
    say(`backup ${taken.backup} at ${taken.at}`);
    // The first whole second after the backup, then load on both sides of the instant.
    await sleep(Math.max(0, Date.parse(taken.at) + 1_500 - Date.now()));
    const load = startLoad({ base: cluster.url, apiKey: cluster.apiKey, createLoops: 3, pauseMs: 10 });
    await sleep(1_500);
    const instant = new Date();
    await sleep(1_500);
    const result = await load.stop();
    await expectNothingLostOrDoubled(result);
    const creates = result.answers.filter((a) => a.kind === 'create' && a.status === 201);
    const before = creates.filter((a) => a.answeredAt < instant.getTime()).map((a) => a.paymentId);
    const after = creates.filter((a) => a.sentAt > instant.getTime()).map((a) => a.paymentId);
    expect(before.length).toBeGreaterThan(5);
    expect(after.length).toBeGreaterThan(5);

    const into = await mkdtemp('/tmp/pis-restore-');
    restored.push(into);
    const started = performance.now();
    const { databaseUrl } = await restore(dir, instant.toISOString(), into, () => {});
    const seconds = (performance.now() - started) / 1000;
    const there = new Set(
      (
        await rows<{ id: string }>(databaseUrl, 'select id from payment where organization_id = $1', [
          cluster.organizationId,
        ])
      ).map((row) => row.id),
    );
    say(
      `restore to ${instant.toISOString()}: ${seconds.toFixed(1)} s; ${before.length} acknowledged before, ` +
        `${after.length} sent after, ${there.size} restored`,
    );
    expect(before.filter((id) => !there.has(id as string))).toEqual([]);
    expect(after.filter((id) => there.has(id as string))).toEqual([]);
    // Each with its history.
    const histories = await rows<{ n: string }>(
      databaseUrl,
      'select count(*) as n from payment_history where payment_id = any($1)',
      [before],
    );
    expect(Number(histories[0]?.n)).toBeGreaterThanOrEqual(before.length);

    // A restore before the first backup, or in the future: one clear error, nothing started.
    await expect(restore(dir, '2020-01-01T00:00:00Z', `${into}-early`, () => {})).rejects.toThrow(
      /before the first backup/,
    );
    await expect(restore(dir, '2099-01-01T00:00:00Z', `${into}-late`, () => {})).rejects.toThrow(
      /in the future/,
    );
    await down(into, () => {});
    expect(await markedProcesses(into)).toEqual([]);
  }, 120_000);

  it('loses nothing answered 201 when the leader’s Postgres and Patroni are killed with -9 under load', async () => {
    const before = await whole();
    const leader = before.nodes.find((n) => n.role === 'leader');
    if (!leader?.postgresPid || !leader.patroniPid)
      throw new Error(`no leader: ${JSON.stringify(before.nodes)}`);
    const load = startLoad({
      base: cluster.url,
      apiKey: cluster.apiKey,
      createLoops: 3,
      completeAfterSeconds: 3,
      sdk: true,
    });
    await sleep(3_000);
    const killedAt = Date.now();
    process.kill(leader.patroniPid, 'SIGKILL');
    process.kill(leader.postgresPid, 'SIGKILL');
    say(`killed ${leader.name} (patroni ${leader.patroniPid}, postgres ${leader.postgresPid})`);
    // Until creates have gone on for a while after the first success past the kill.
    for (
      let waited = 0;
      windowAfter(load.answers, killedAt + 1_000) === Number.POSITIVE_INFINITY && waited < 60_000;
      waited += 250
    ) {
      await sleep(250);
    }
    await sleep(4_000);
    const result = await load.stop();
    // A commit racing the kill can still be answered (its backend outlives the postmaster a moment
    // and the synchronous standby has it): the window is the longest time with no create answered.
    const window = Math.max(
      windowAfter(result.answers, killedAt + 1_000) + 1_000,
      longestGap(result.answers),
    );
    const { answered, slowest } = await expectNothingLostOrDoubled(result);
    say(
      `failover: ${(window / 1000).toFixed(1)} s without a create answered 201 (kill -> next 201); ` +
        `${answered.length} payments, slowest answer ${(slowest / 1000).toFixed(1)} s; ${summary(result.answers)}`,
    );
    expect(window).toBeLessThan(15_000);
    // Through the SDK too: its creates retried across the failover and answered.
    expect(result.answers.filter((a) => a.kind === 'sdk-create' && a.status === 201).length).toBeGreaterThan(
      0,
    );
    expect(result.answers.filter((a) => a.kind === 'sdk-create' && a.status !== 201)).toEqual([]);

    const after = await status(dir);
    const newLeader = after.nodes.find((n) => n.role === 'leader');
    expect(newLeader?.name).toBeDefined();
    expect(newLeader?.name).not.toBe(leader.name);

    // Every approved payment completes in the table (the worker goes on; no read catches it up).
    expect(result.approved.size).toBeGreaterThan(10);
    const approved = [...result.approved];
    let pending: { id: string; status: string }[] = [];
    for (let waited = 0; waited < 40_000; waited += 500) {
      pending = await rows(
        appDatabase(),
        "select id, status from payment where id = any($1) and status <> 'COMPLETED'",
        [approved],
      );
      if (pending.length === 0) break;
      await sleep(500);
    }
    expect(pending).toEqual([]);
    // Payments approved by a try whose answer was lost complete too; nothing is stuck half-way.
    const stuck = await rows(
      appDatabase(),
      "select id, status from payment where organization_id = $1 and status not in ('COMPLETED', 'AUTHORIZING')",
      [cluster.organizationId],
    );
    expect(stuck).toEqual([]);

    // Every instance listens again: a waiting read on each wakes up at the approval, not at its timeout.
    await expectWaitingReadsWake();
    await expectRevocationHeard();

    // The old leader started again rejoins as a standby (pg_rewind) and takes no write.
    const rejoined = await startNode(dir, leader.name);
    expect(rejoined.nodes.find((n) => n.name === leader.name)?.role).toMatch(/^(replica|sync_standby)$/);
    expect(rejoined.nodes.find((n) => n.role === 'leader')?.name).toBe(newLeader?.name);
  }, 200_000);

  it('moves the leader to the synchronous standby under load with nothing lost or doubled', async () => {
    const load = startLoad({ base: cluster.url, apiKey: cluster.apiKey, createLoops: 3 });
    await sleep(2_000);
    const startedAt = Date.now();
    const moved = await switchover(dir, () => {});
    await sleep(3_000);
    const result = await load.stop();
    const gap = longestGap(result.answers);
    const retry = longestRetry(result.answers);
    await expectNothingLostOrDoubled(result);
    say(
      `switchover ${moved.switchover.from} -> ${moved.switchover.to}: ${moved.switchover.seconds} s to HAProxy on the new leader; ` +
        `longest time without a create answered 201: ${(gap / 1000).toFixed(1)} s; longest retry of one order ${(retry / 1000).toFixed(1)} s; ${summary(result.answers)}`,
    );
    // A claim whose request failed with the old leader is freed once the new one answers
    // (payments/idempotency.ts settleFailedClaim), not held until it counts as abandoned.
    expect(retry).toBeLessThan(ABANDONED_CLAIM_MS - 5_000);
    expect(startedAt).toBeGreaterThan(0);
    expect(moved.nodes.find((n) => n.role === 'leader')?.name).toBe(moved.switchover.to);
  }, 120_000);
  it('goes on writing when the synchronous standby dies: the role moves to the other standby', async () => {
    const before = await whole();
    const standby = before.nodes.find((n) => n.role === 'sync_standby');
    if (!standby?.postgresPid || !standby.patroniPid)
      throw new Error(`no sync standby: ${JSON.stringify(before.nodes)}`);
    const load = startLoad({ base: cluster.url, apiKey: cluster.apiKey, createLoops: 2 });
    await sleep(1_500);
    process.kill(standby.patroniPid, 'SIGKILL');
    process.kill(standby.postgresPid, 'SIGKILL');
    let after = before;
    for (let waited = 0; waited < 30_000; waited += 500) {
      after = await status(dir);
      const sync = after.nodes.find((n) => n.role === 'sync_standby');
      if (sync && sync.name !== standby.name) break;
      await sleep(500);
    }
    await sleep(2_000);
    const result = await load.stop();
    await expectNothingLostOrDoubled(result);
    const gap = longestGap(result.answers);
    say(
      `sync standby ${standby.name} killed: longest time without a create answered 201 ${(gap / 1000).toFixed(1)} s`,
    );
    expect(after.nodes.find((n) => n.role === 'sync_standby')?.name).not.toBe(standby.name);
    expect(after.nodes.find((n) => n.role === 'sync_standby')).toBeDefined();
    expect(gap).toBeLessThan(10_000);
    await startNode(dir, standby.name);
  }, 90_000);

  it('goes on writing while etcd is down (failsafe mode) and is whole again when it is back', async () => {
    await whole();
    const etcd = await etcdPid(dir);
    if (!etcd) throw new Error('etcd is not running');
    const load = startLoad({ base: cluster.url, apiKey: cluster.apiKey, createLoops: 2, pauseMs: 100 });
    await sleep(1_000);
    const stoppedAt = Date.now();
    process.kill(etcd, 'SIGKILL');
    // Twice the leader key's ttl: without failsafe mode the leader would have demoted itself.
    await sleep(20_000);
    const during = load.answers.filter((a) => a.status === 201 && a.answeredAt > stoppedAt + 12_000);
    await startNode(dir, 'etcd');
    const again = (await whole()).nodes.map((n) => n.role).sort();
    const result = await load.stop();
    await expectNothingLostOrDoubled(result);
    const gap = longestGap(result.answers);
    say(
      `etcd down 20 s: ${during.length} creates answered 201 after its ttl, longest gap ${(gap / 1000).toFixed(1)} s`,
    );
    // Once in many CI runs no create was answered while etcd was down, with nothing to say why:
    // then the members' own account of those seconds is printed with the failure.
    if (during.length <= 10 || gap >= 5_000) say(await clusterLogSince(stoppedAt - 2_000));
    expect(during.length).toBeGreaterThan(10);
    expect(gap).toBeLessThan(5_000);
    expect(again).toEqual(['leader', 'replica', 'sync_standby']);
  }, 90_000);
});
