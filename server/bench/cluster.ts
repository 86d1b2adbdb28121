import { mkdtemp, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  backup,
  down,
  PACKAGES_PRESENT,
  restore,
  setSynchronous,
  startNode,
  status,
  superuserUrlOf,
  switchover,
  up,
} from '../src/cli/cluster/cluster.ts';
import { systemClock } from '../src/clock.ts';
import { openOrm } from '../src/db/orm.ts';
import { createOrganization } from '../src/organizations/organization-admin.ts';
import { longestGap, longestRetry, startLoad, windowAfter } from '../test/cluster/load.ts';
import type { Goal } from './goals.ts';
import { runLoad } from './load-runner.ts';
import { seedPayments } from './seed-payments.ts';

/**
 * `npm run bench -- --cluster` (or `--cluster-only`): issue 30's figures on a real cluster made
 * by the cluster tool (three PostgreSQL 15 nodes under Patroni, HAProxy, two instances behind
 * HAProxy): create through the front door with synchronous replication on and off in turns
 * (Patroni's dynamic `synchronous_mode`), the failover window (kill -9 of the leader's Postgres
 * and Patroni under load, to the next create answered 201), a planned switchover's window, and
 * a point-in-time restore after seeding `--cluster-payments N` payments (default 100,000; the
 * runbook's figure is at 1,000,000). Needs the Debian packages the README lists.
 */

/** Whether the Debian packages the cluster needs are installed (else a full bench skips it). */
export const clusterPackagesInstalled = () => PACKAGES_PRESENT();

const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const DURATION_SECONDS = 8;
const ROUNDS = 2;
const CREATE_BODY = JSON.stringify({
  amount: { value: '10.50', currency: 'GBP' },
  toAccount: { accountName: 'Bench Ltd', sortCode: '040004', accountNumber: '12345678' },
  reference: 'bench',
});

export interface ClusterBenchResult {
  create: { synchronous: Measure; asynchronous: Measure };
  failoverSeconds: number;
  switchoverSeconds: number;
  switchoverGapSeconds: number;
  restore: { payments: number; seedSeconds: number; backupSeconds: number; restoreSeconds: number };
}

interface Measure {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
}

const log = (line: string) => process.stderr.write(`[cluster bench] ${line}\n`);
const seconds = (since: number) => (performance.now() - since) / 1000;

export async function measureCluster(options: { payments: number }): Promise<ClusterBenchResult> {
  const dir = await mkdtemp('/tmp/pis-bench-cluster-');
  const into = `${dir}-restored`;
  process.env.RATE_LIMITS = 'off';
  process.env.LOG_LEVEL = 'warn';
  try {
    const started = performance.now();
    const cluster = await up(dir, {}, log);
    log(`up in ${seconds(started).toFixed(1)} s`);
    const spec = (durationSeconds: number) => ({
      url: cluster.url,
      method: 'POST' as const,
      paths: ['/api/payments'],
      headers: { 'x-api-key': cluster.apiKey, 'content-type': 'application/json' },
      body: CREATE_BODY,
      connections: CONNECTIONS,
      durationSeconds,
    });
    await runLoad(spec(WARMUP_SECONDS));
    const synchronous: Measure[] = [];
    const asynchronous: Measure[] = [];
    // In turns, so a drift of the machine falls on both.
    for (let round = 0; round < ROUNDS; round++) {
      for (const on of [true, false]) {
        await setSynchronous(dir, on);
        const result = await runLoad(spec(DURATION_SECONDS));
        (on ? synchronous : asynchronous).push(result);
        log(
          `create, synchronous ${on ? 'on ' : 'off'}: ${result.requestsPerSecond.toFixed(0)}/s, p99 ${result.p99Ms} ms`,
        );
      }
    }
    await setSynchronous(dir, true);

    // The failover: kill -9 of the leader's Postgres and Patroni under a steady create load.
    const before = await status(dir);
    const leader = before.nodes.find((n) => n.role === 'leader');
    if (!leader?.postgresPid || !leader.patroniPid) throw new Error('no leader');
    let load = startLoad({ base: cluster.url, apiKey: cluster.apiKey, createLoops: 3 });
    await sleep(3_000);
    const killedAt = Date.now();
    process.kill(leader.patroniPid, 'SIGKILL');
    process.kill(leader.postgresPid, 'SIGKILL');
    while (
      windowAfter(load.answers, killedAt + 1_000) === Number.POSITIVE_INFINITY &&
      Date.now() - killedAt < 60_000
    ) {
      await sleep(250);
    }
    await sleep(2_000);
    const failed = (await load.stop()).answers;
    // A commit racing the kill may still be answered: the window is the longest time with no 201.
    const failoverSeconds =
      Math.max(windowAfter(failed, killedAt + 1_000) + 1_000, longestGap(failed)) / 1000;
    log(`failover: ${failoverSeconds.toFixed(1)} s without a create answered 201`);
    await startNode(dir, leader.name);

    load = startLoad({ base: cluster.url, apiKey: cluster.apiKey, createLoops: 3 });
    await sleep(2_000);
    const moved = await switchover(dir, log);
    await sleep(3_000);
    const switched = (await load.stop()).answers;
    const switchoverGapSeconds = longestGap(switched) / 1000;
    log(
      `switchover: ${moved.switchover.seconds} s; longest time without a create answered 201: ${switchoverGapSeconds.toFixed(1)} s; ` +
        `longest retry of one order: ${(longestRetry(switched) / 1000).toFixed(1)} s`,
    );

    // A restore at scale: seed, back up, one more create, restore to just after it.
    const seeding = performance.now();
    // An organization of its own: the seed writes the history of every payment of the organization.
    const orm = await openOrm(cluster.databaseUrl, { poolMax: 1 });
    const { organizationId } = await createOrganization(orm.em.fork(), 'Restore Bench Merchant', systemClock);
    await orm.close();
    await seedPayments(await superuserUrlOf(dir), organizationId, options.payments);
    const seedSeconds = seconds(seeding);
    log(`seeded ${options.payments.toLocaleString('en')} payments in ${seedSeconds.toFixed(1)} s`);
    const backingUp = performance.now();
    const taken = await backup(dir, log);
    const backupSeconds = seconds(backingUp);
    log(`backup ${taken.backup}: ${backupSeconds.toFixed(1)} s`);
    await sleep(1_500);
    const instant = new Date();
    await sleep(500);
    const restoring = performance.now();
    const { databaseUrl } = await restore(dir, instant.toISOString(), into, log);
    const restoreSeconds = seconds(restoring);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const { rows } = await client.query<{ n: string }>('select count(*) as n from payment');
    await client.end();
    log(`restore: ${restoreSeconds.toFixed(1)} s, ${Number(rows[0]?.n).toLocaleString('en')} payments there`);

    return {
      create: { synchronous: average(synchronous), asynchronous: average(asynchronous) },
      failoverSeconds,
      switchoverSeconds: moved.switchover.seconds,
      switchoverGapSeconds,
      restore: { payments: options.payments, seedSeconds, backupSeconds, restoreSeconds },
    };
  } finally {
    await down(into, log).catch(() => {});
    await down(dir, log).catch(() => {});
    await rm(into, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  }
}

function average(results: Measure[]): Measure {
  const mean = (pick: (m: Measure) => number) =>
    results.reduce((sum, m) => sum + pick(m), 0) / results.length;
  return {
    requestsPerSecond: mean((m) => m.requestsPerSecond),
    p50Ms: mean((m) => m.p50Ms),
    p99Ms: mean((m) => m.p99Ms),
    failed: results.reduce((sum, m) => sum + m.failed, 0),
  };
}

export function printCluster(result: ClusterBenchResult): void {
  const { synchronous: on, asynchronous: off } = result.create;
  console.log(
    `\ncluster (3 x PostgreSQL 15 under Patroni, 2 instances behind HAProxy, ${CONNECTIONS} connections, ${ROUNDS} x ${DURATION_SECONDS} s each):`,
  );
  console.log(
    `  create, synchronous replication on:  ${on.requestsPerSecond.toFixed(0)}/s, p50 ${on.p50Ms.toFixed(1)} ms, p99 ${on.p99Ms.toFixed(1)} ms, ${on.failed} failed`,
  );
  console.log(
    `  create, synchronous replication off: ${off.requestsPerSecond.toFixed(0)}/s, p50 ${off.p50Ms.toFixed(1)} ms, p99 ${off.p99Ms.toFixed(1)} ms, ${off.failed} failed`,
  );
  console.log(
    `  synchronous costs ${(100 * (1 - on.requestsPerSecond / off.requestsPerSecond)).toFixed(0)} % of creates/s`,
  );
  console.log(
    `  failover (kill -9 of the leader's Postgres and Patroni): ${result.failoverSeconds.toFixed(1)} s without a create answered 201`,
  );
  console.log(
    `  switchover: ${result.switchoverSeconds} s to HAProxy on the new leader, longest time without a create answered 201 ${result.switchoverGapSeconds.toFixed(1)} s`,
  );
  const r = result.restore;
  console.log(
    `  ${r.payments.toLocaleString('en')} payments: seeded ${r.seedSeconds.toFixed(0)} s, full backup ${r.backupSeconds.toFixed(1)} s, point-in-time restore ${r.restoreSeconds.toFixed(1)} s`,
  );
}

export function clusterGoals(result: ClusterBenchResult): Goal[] {
  return [
    {
      figure: 'cluster failover: time without a create 201',
      value: `${result.failoverSeconds.toFixed(1)} s`,
      goal: '< 15 s',
      met: result.failoverSeconds < 15,
    },
    {
      figure: 'cluster switchover: longest gap between creates',
      value: `${result.switchoverGapSeconds.toFixed(1)} s`,
      goal: '< 5 s',
      met: result.switchoverGapSeconds < 5,
    },
  ];
}
