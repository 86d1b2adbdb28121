import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { startNotifications } from '../../src/db/notifications.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import {
  createPaymentWaiters,
  type PaymentWaiters,
  startPaymentWaiters,
} from '../../src/payments/payment-waiters.ts';
import { PUBLISH_INTERVAL_MS, startWaitingReadCounts } from '../../src/payments/waiting-read-counts.ts';
import { expectSuccess } from '../helpers/expect-envelope.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, type Headers, type PaymentData } from '../payments/payment-fixtures.ts';

// Three waits per organization across every instance; request budgets far out of reach.
const rateLimits = {
  ...testConfig().rateLimits,
  enabled: true,
  apiReads: 10_000,
  apiWrites: 10_000,
  waitsPerOrganization: 3,
};
const a = await createTestApp({ waiting: true, config: { rateLimits } });
const aWaiters = a.waiters as PaymentWaiters;

/** A second instance on the same database: its own pool, listening connection and waiters. */
const bOrm = await openOrm(a.databaseUrl, { poolMax: 2 });
const bNotifications = startNotifications({ databaseUrl: a.databaseUrl, logger: silentLogger() });
const bWaiters = await startPaymentWaiters(bNotifications);
const b = await buildApp({ config: a.config, orm: bOrm, clock: a.clock, waiters: bWaiters });

// Each instance publishes and reads the counts on its timer, as `npm start` does (process.ts).
const aCounts = startWaitingReadCounts({ orm: a.orm, waiters: aWaiters, logger: silentLogger() });
const bCounts = startWaitingReadCounts({ orm: bOrm, waiters: bWaiters, logger: silentLogger() });
afterAll(async () => {
  await aCounts.stop();
  await bCounts.stop();
  await b.close();
  await bNotifications.close();
  await bOrm.close();
});

const { organizationId, headers } = await a.factories.createMerchant();
const stranger = await a.factories.createMerchant();

type App = typeof b;
const get = (app: App, id: string, extra: Headers = {}, as: Headers = headers) =>
  app.inject({ method: 'GET', url: `/api/payments/${id}`, headers: { ...as, ...extra } });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls for up to `ms` (a few publish intervals: the counts travel on a timer). */
async function until(condition: () => boolean, what: string, ms = 6 * PUBLISH_INTERVAL_MS) {
  const deadline = performance.now() + ms;
  while (!condition() && performance.now() < deadline) await pause(20);
  expect(condition(), what).toBe(true);
}

/** A waiting read (30 s) on a new payment's current ETag, through `app`. */
async function waitOnNewPayment(app: App, as: Headers = headers) {
  const { paymentId } = await created(a.app, as);
  const etag = (await get(app, paymentId, {}, as)).headers.etag as string;
  const started = performance.now();
  const answer = get(app, paymentId, { 'if-none-match': etag, prefer: 'wait=30' }, as);
  return { paymentId, answer, started, as };
}

/** A waiting read that was refused answers at once, as one that did not ask. */
async function expectRefused(app: App) {
  const refused = await waitOnNewPayment(app);
  const answer = await refused.answer;
  expect(performance.now() - refused.started).toBeLessThan(2_000);
  expectSuccess<PaymentData>(answer);
  expect(answer.headers.etag).toBeDefined();
  expect(answer.headers['preference-applied']).toBeUndefined();
}

/** Ends held waits (cancelling their payments) and checks they were honoured. */
async function release(held: Awaited<ReturnType<typeof waitOnNewPayment>>[]) {
  for (const { paymentId, answer, as } of held) {
    await a.app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers: as });
    const done = await answer;
    expect(expectSuccess<PaymentData>(done).status).toBe('CANCELLED');
    expect(done.headers['preference-applied']).toBe('wait=30');
  }
}

const rowsOf = (process: string) =>
  a.orm.em
    .getConnection()
    .execute<{ organization_id: string; waiting: number }[]>(
      'select organization_id, waiting from waiting_read_count where process_id = ?',
      [process],
    );

describe('an organization’s waits counted across instances on one database (RATE_LIMIT_WAITS_PER_ORGANIZATION)', () => {
  test('it holds its limit in total across both instances, after the publish interval', async () => {
    const held = [await waitOnNewPayment(a.app), await waitOnNewPayment(a.app)];
    await until(() => aWaiters.waitingFor(organizationId) === 2, 'two waits in A');
    held.push(await waitOnNewPayment(b));
    await until(() => bWaiters.waitingFor(organizationId) === 1, 'one wait in B');

    // Each instance hears the other's count within a few intervals (no round trip on the read).
    await until(() => aWaiters.waitingElsewhere(organizationId) === 1, 'A hears B’s wait');
    await until(() => bWaiters.waitingElsewhere(organizationId) === 2, 'B hears A’s two waits');
    expect(await rowsOf(aCounts.processId)).toEqual([{ organization_id: organizationId, waiting: 2 }]);

    // Three in total: neither instance admits a fourth, though each holds fewer than three.
    await expectRefused(a.app);
    await expectRefused(b);

    // Another organization still waits on either instance.
    const theirs = await waitOnNewPayment(b, stranger.headers);
    await until(() => bWaiters.waitingFor(stranger.organizationId) === 1, 'the stranger waits in B');

    await release([...held, theirs]);
    // Once the ended waits are published, the organization may wait again, and its rows are gone.
    await until(
      () =>
        aWaiters.waitingElsewhere(organizationId) === 0 && bWaiters.waitingElsewhere(organizationId) === 0,
      'the ended waits are heard',
    );
    await until(() => aWaiters.waiting === 0 && bWaiters.waiting === 0, 'no waits left');
    await aCounts.sync();
    expect(await rowsOf(aCounts.processId)).toEqual([]);
    const again = await waitOnNewPayment(b);
    await until(() => bWaiters.waitingFor(organizationId) === 1, 'a wait admitted again');
    await release([again]);
  });

  test('a stale row (a process killed without deleting its rows) is ignored and purged; a fresh one counts', async () => {
    const dead = randomUUID();
    const live = randomUUID();
    const connection = a.orm.em.getConnection();
    await connection.execute(
      `insert into waiting_read_count (process_id, organization_id, waiting, heartbeat_at)
       values (?, ?, 50, clock_timestamp() - interval '10 seconds')`,
      [dead, organizationId],
    );
    await aCounts.sync();
    expect(aWaiters.waitingElsewhere(organizationId)).toBe(0);
    expect(await rowsOf(dead)).toEqual([]);
    const admitted = await waitOnNewPayment(a.app);
    await until(() => aWaiters.waitingFor(organizationId) === 1, 'admitted despite the dead process');
    await release([admitted]);

    // The same count from a process that is alive (fresh heartbeat) holds the organization back.
    await connection.execute(
      `insert into waiting_read_count (process_id, organization_id, waiting) values (?, ?, 3)`,
      [live, organizationId],
    );
    await aCounts.sync();
    expect(aWaiters.waitingElsewhere(organizationId)).toBe(3);
    await expectRefused(a.app);
    await connection.execute('delete from waiting_read_count where process_id = ?', [live]);
    await aCounts.sync();
    expect(aWaiters.waitingElsewhere(organizationId)).toBe(0);
  });

  test('reads never touch the table: they answer while it is locked', async () => {
    const { paymentId } = await created(a.app, headers);
    const etag = (await get(a.app, paymentId)).headers.etag as string;
    const locked = Promise.withResolvers<void>();
    const unlock = Promise.withResolvers<void>();
    // Another connection holds the table so that any statement on it would block until the end.
    const holder = a.orm.em.fork().transactional(async (em) => {
      await em.execute('lock table waiting_read_count in access exclusive mode');
      locked.resolve();
      await unlock.promise;
    });
    await locked.promise;
    try {
      const timeout = (ms: number) =>
        pause(ms).then(() => {
          throw new Error('the read waited for the waiting_read_count table');
        });
      // A read that does not wait, and a waiting read's admission, decided in memory.
      const plain = await Promise.race([get(a.app, paymentId), timeout(5_000)]);
      expect(expectSuccess<PaymentData>(plain).paymentId).toBe(paymentId);
      const waiting = get(a.app, paymentId, { 'if-none-match': etag, prefer: 'wait=30' });
      await Promise.race([
        until(() => aWaiters.waitingFor(organizationId) === 1, 'admitted while the table is locked', 5_000),
        timeout(5_000),
      ]);
      await a.app.inject({ method: 'POST', url: `/api/payments/${paymentId}/cancel`, headers });
      expect((await waiting).headers['preference-applied']).toBe('wait=30');
    } finally {
      unlock.resolve();
      await holder;
    }
  });

  test('a clean stop deletes the process’s rows (its waits ended with it)', async () => {
    const waiters = createPaymentWaiters(a.notifications as NonNullable<typeof a.notifications>);
    const counts = startWaitingReadCounts({ orm: a.orm, waiters, logger: silentLogger() });
    const watch = waiters.watch(randomUUID(), stranger.organizationId);
    await counts.sync();
    expect(await rowsOf(counts.processId)).toEqual([
      { organization_id: stranger.organizationId, waiting: 1 },
    ]);
    await aCounts.sync();
    expect(aWaiters.waitingElsewhere(stranger.organizationId)).toBe(1);
    await counts.stop();
    watch.close();
    expect(await rowsOf(counts.processId)).toEqual([]);
    await aCounts.sync();
    expect(aWaiters.waitingElsewhere(stranger.organizationId)).toBe(0);
  });
});
