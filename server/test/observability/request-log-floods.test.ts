import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { revokeApiKey } from '../../src/auth/api-keys.ts';
import { openOrm } from '../../src/db/orm.ts';
import { silentLogger } from '../../src/logger.ts';
import { requestLogDropped } from '../../src/observability/metrics.ts';
import {
  ORGANIZATION_QUEUE_SHARE,
  REFUSALS_PER_MINUTE,
  type RequestLogEntry,
  RequestLogWriter,
} from '../../src/observability/request-log.ts';
import { factories as makeFactories } from '../helpers/factories.ts';
import { withinOneWindow } from '../helpers/rate-limit-window.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { testConfig } from '../helpers/test-config.ts';
import { createTestDatabase } from '../helpers/test-database.ts';
import { paymentBody } from '../payments/payment-fixtures.ts';

/**
 * Issue 31 item 1: a free organization looping big bodies at its own refusals filled the request
 * log (a 429 row held 15,053 characters of body, ~16 KB per cheap request, kept 30 days) and,
 * while the writer lagged, pushed other merchants' entries out of the one shared queue.
 */

const database = await createTestDatabase();
const orm = await openOrm(database.url, { poolMax: 4 });
const clock = new TestClock();
const factories = makeFactories(orm, clock);
afterAll(async () => {
  await app.close();
  await orm.close();
  await database.drop();
});

// Written by the tests (flush()), never by its timer or a full batch.
const writer = new RequestLogWriter(orm, silentLogger(), {
  flushEveryMs: 3_600_000,
  flushAt: Number.POSITIVE_INFINITY,
});
const WRITES_A_WINDOW = 3;
const app = await buildApp({
  config: testConfig({
    databaseUrl: database.url,
    rateLimits: { ...testConfig().rateLimits, enabled: true, apiWrites: WRITES_A_WINDOW },
  }),
  orm,
  clock,
  requestLog: writer,
});
await app.ready();

/** 100 KB of a JSON body, as the flood sent. */
const BIG = { ...paymentBody(), reference: 'x', filler: 'A'.repeat(100_000) };
const rowsOf = async (organizationId: string) =>
  orm.em.fork().execute<
    {
      status: number;
      request_body: string | null;
      response_body: string | null;
      error_code: string | null;
    }[]
  >(
    'select status, request_body, response_body, error_code from request_log where organization_id = ? order by id',
    [organizationId],
  );
const dropped = async (reason: string) =>
  (await requestLogDropped.get()).values.find((value) => value.labels.reason === reason)?.value ?? 0;

describe('refused requests are logged without their bodies', () => {
  it('a revoked key’s 401 and every 429: method, route, status and code, no body', async () => {
    const merchant = await factories.createMerchant();
    const post = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api/payments', headers, payload: BIG });

    const statuses: number[] = [];
    await withinOneWindow(testConfig().rateLimits.windowSeconds, 10_000);
    for (let i = 0; i < WRITES_A_WINDOW + 2; i++) statuses.push((await post(merchant.headers)).statusCode);
    // The budget's first requests reach the procedure (an unknown field is ignored), the rest are 429.
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    await revokeApiKey(orm.em.fork(), { apiKeyId: merchant.apiKeyId }, clock);
    expect((await post(merchant.headers)).statusCode).toBe(401);
    await writer.flush();

    const rows = await rowsOf(merchant.organizationId);
    expect(rows.map((row) => row.status)).toEqual([201, 201, 201, 429, 429, 401]);
    for (const row of rows.filter((row) => row.status !== 201)) {
      expect(row).toMatchObject({ request_body: null, response_body: null });
    }
    expect(rows.filter((row) => row.status === 429).map((row) => row.error_code)).toEqual([
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);
    // An admitted request keeps its (masked, cut) bodies as before.
    expect(rows[0]?.request_body?.length).toBeGreaterThan(10_000);
    expect(rows[0]?.response_body).toContain('paymentId');
  }, 60_000);
});

const entry = (organizationId: string, n: number): RequestLogEntry => ({
  organizationId,
  at: new Date(),
  method: 'GET',
  route: '/api/payments',
  status: 200,
  durationMs: 1,
  keyPrefix: 'pis_test_abcd',
  requestId: `req-${n}`,
  idempotencyKey: null,
  bodies: true,
  requestBody: undefined,
  responseBody: '{"success":true,"data":{"payments":[]}}',
});

describe('each organization has its own share of the queue and a ceiling a day', () => {
  it('one organization’s flood while the writer lags drops its own entries, never another’s', async () => {
    const flood = await factories.createOrg();
    const quiet = await factories.createOrg();
    const before = await dropped('organization_share');
    for (let n = 0; n < ORGANIZATION_QUEUE_SHARE + 50; n++) writer.add(entry(flood, n));
    writer.add(entry(quiet, 1));
    await writer.flush();
    expect(await dropped('organization_share')).toBe(before + 50);
    expect(await rowsOf(quiet)).toHaveLength(1);
    expect(await rowsOf(flood)).toHaveLength(ORGANIZATION_QUEUE_SHARE);
  });

  it('keeps at most rowsPerDay entries an organization a day, a tenth for one on reduced budgets, across batches', async () => {
    const ceilinged = new RequestLogWriter(orm, silentLogger(), {
      flushEveryMs: 3_600_000,
      flushAt: Number.POSITIVE_INFINITY,
      rowsPerDay: 50,
    });
    const full = await factories.createOrg();
    const reduced = await factories.createOrg();
    await orm.em.fork().execute('update organization set reduced_budgets = true where id = ?', [reduced]);
    const other = await factories.createOrg();
    const before = await dropped('daily_ceiling');
    for (const batch of [40, 40]) {
      for (let n = 0; n < batch; n++) {
        ceilinged.add(entry(full, n));
        ceilinged.add(entry(reduced, n));
      }
      ceilinged.add(entry(other, batch));
      await ceilinged.flush();
    }
    await ceilinged.stop();
    expect(await rowsOf(full)).toHaveLength(50);
    expect(await rowsOf(reduced)).toHaveLength(5);
    expect(await rowsOf(other)).toHaveLength(2);
    expect(await dropped('daily_ceiling')).toBe(before + (80 - 50) + (80 - 5));
    const [day] = await orm.em
      .fork()
      .execute<{ entries: string }[]>('select entries from request_log_day where organization_id = ?', [
        full,
      ]);
    // The day's count goes on past the ceiling: it says how many were not kept.
    expect(Number(day?.entries)).toBe(80);
  });

  it('refused requests, which spend no budget, queue at most REFUSALS_PER_MINUTE a minute per organization', async () => {
    // The review's attack: ten free sign-ups, each looping a revoked key's 401, filled the queue.
    const looping = await factories.createOrg();
    const before = await dropped('refusals');
    for (let n = 0; n < REFUSALS_PER_MINUTE + 40; n++)
      writer.add({ ...entry(looping, n), status: 401, bodies: false });
    await writer.flush();
    expect(await rowsOf(looping)).toHaveLength(REFUSALS_PER_MINUTE);
    expect(await dropped('refusals')).toBe(before + 40);
  });

  it('an organization past its day’s ceiling is not queued again that day', async () => {
    const ceilinged = new RequestLogWriter(orm, silentLogger(), {
      flushEveryMs: 3_600_000,
      flushAt: Number.POSITIVE_INFINITY,
      rowsPerDay: 10,
    });
    const full = await factories.createOrg();
    for (let n = 0; n < 12; n++) ceilinged.add(entry(full, n));
    await ceilinged.flush();
    const before = await dropped('daily_ceiling');
    for (let n = 0; n < 5; n++) ceilinged.add(entry(full, n));
    // Dropped as they arrive, before any queue or statement.
    expect(await dropped('daily_ceiling')).toBe(before + 5);
    await ceilinged.stop();
    expect(await rowsOf(full)).toHaveLength(10);
  });
});
