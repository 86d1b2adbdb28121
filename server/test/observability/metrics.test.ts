import { afterAll, describe, expect, it } from 'vitest';
import { paymentDueJob } from '../../src/jobs/payment-due-job.ts';
import { GracefulShutdown } from '../../src/lifecycle/graceful-shutdown.ts';
import { silentLogger } from '../../src/logger.ts';
import { attachMetricSources } from '../../src/observability/metrics.ts';
import { startProcessMetrics } from '../../src/observability/process-metrics.ts';
import { catchUpPayments } from '../../src/payments/catch-up-payments.ts';
import { noopPaymentScheduler } from '../../src/payments/payment-scheduler.ts';
import { withinOneWindow } from '../helpers/rate-limit-window.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { testConfig } from '../helpers/test-config.ts';
import { created, paymentBody } from '../payments/payment-fixtures.ts';

/**
 * Issue 20, item 2: every family on the metrics listener moves with the work it counts, and no
 * label ever carries an id (payment, organization, key, request) or anything a client sent.
 * Scraped over HTTP from the listener startProcessMetrics opens, as Prometheus would.
 */

const { app, orm, clock, factories, waiters } = await createTestApp({
  waiting: true,
  // A budget of 2 reads per key and window: the third read of one key is refused (429).
  config: { rateLimits: { ...testConfig().rateLimits, enabled: true, apiReads: 2 } },
});
const shutdown = new GracefulShutdown(silentLogger());
const server = await startProcessMetrics(
  {
    config: testConfig({ metrics: { host: '127.0.0.1', port: 0 } }),
    logger: silentLogger(),
    orm,
    runWorker: true,
  },
  shutdown,
);
afterAll(() => shutdown.run());
// As startServiceParts does.
attachMetricSources({ waitingReads: () => waiters?.waiting ?? 0 });

/** Everything any test here has put in a request: none of it may appear in a label. */
const secrets = new Set<string>();

async function scrape(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${server?.port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

/** Sum of the samples of `name` whose labels include `labels`. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    if (Object.entries(labels).every(([key, wanted]) => found[key] === wanted)) sum += Number(match[4]);
  }
  return sum;
}

async function merchant() {
  const { organizationId, apiKey, apiKeyId, headers } = await factories.createMerchant();
  for (const secret of [organizationId, apiKey, apiKeyId, apiKey.slice(0, 12)]) secrets.add(secret);
  return headers;
}

describe('the metrics listener', () => {
  it('serves only GET /metrics, in the text format, with a help text for every family', async () => {
    const text = await scrape();
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    for (const family of families) expect(text).toMatch(new RegExp(`^# HELP ${family} \\S`, 'm'));
    for (const family of [
      'http_server_request_duration_seconds',
      'pis_payments_created_total',
      'pis_payment_transitions_total',
      'pis_timeline_lag_seconds',
      'pis_sweep_backlog_payments',
      'pis_sweep_oldest_overdue_seconds',
      'pis_waiting_reads',
      'pis_provider_call_duration_seconds',
      'pis_rate_limit_refusals_total',
      'pis_db_pool_connections',
      // Node's defaults
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(families).toContain(family);
    }
    expect((await fetch(`http://127.0.0.1:${server?.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server?.port}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});

describe('each family moves with its work', () => {
  it('HTTP requests by route template, method and status; payments created; provider calls; transitions', async () => {
    const headers = await merchant();
    const before = await scrape();
    const payment = await created(app, headers, paymentBody({ flowType: 'API_ONLY' }));
    secrets.add(payment.paymentId);
    const read = await app.inject({
      method: 'GET',
      url: `/api/payments/${payment.paymentId}`,
      headers: { ...headers, 'x-request-id': 'req-metrics-label-check-1' },
    });
    expect(read.statusCode).toBe(200);
    secrets.add('req-metrics-label-check-1');
    const unknown = await app.inject({
      method: 'GET',
      url: `/api/payments/${payment.paymentId}/nonsense`,
      headers,
    });
    expect(unknown.statusCode).toBe(404);
    const approved = await app.inject({
      method: 'POST',
      url: `/api/payments/${payment.paymentId}/mock-bank/approve`,
      headers,
      payload: { completeAfterSeconds: 5 },
    });
    expect(approved.statusCode).toBe(200);
    const after = await scrape();

    const http = (route: string, method: string, status: string) =>
      value(after, 'http_server_request_duration_seconds_count', {
        http_route: route,
        http_request_method: method,
        http_response_status_code: status,
      }) -
      value(before, 'http_server_request_duration_seconds_count', {
        http_route: route,
        http_request_method: method,
        http_response_status_code: status,
      });
    expect(http('/api/payments', 'POST', '201')).toBe(1);
    expect(http('/api/payments/{paymentId}', 'GET', '200')).toBe(1);
    expect(http('unmatched', 'GET', '404') + http('/api/*', 'GET', '404')).toBe(1);
    expect(http('/api/payments/{paymentId}/mock-bank/approve', 'POST', '200')).toBe(1);

    const delta = (name: string, labels: Record<string, string> = {}) =>
      value(after, name, labels) - value(before, name, labels);
    expect(delta('pis_payments_created_total', { provider: 'mock', flow: 'API_ONLY' })).toBe(1);
    expect(
      delta('pis_provider_call_duration_seconds_count', {
        provider: 'mock',
        operation: 'startPayment',
        outcome: 'ok',
      }),
    ).toBe(1);
    // Created: PENDING then AUTHORIZING (sent to the bank); approved: at least one more step.
    expect(
      delta('pis_payment_transitions_total', { provider: 'mock', flow: 'API_ONLY' }),
    ).toBeGreaterThanOrEqual(3);
    expect(delta('pis_payment_transitions_total', { status: 'PENDING' })).toBe(1);
  });

  it('rate-limit refusals by budget', async () => {
    const headers = await merchant();
    const before = value(await scrape(), 'pis_rate_limit_refusals_total', { limit: 'api_reads' });
    const statuses: number[] = [];
    await withinOneWindow(testConfig().rateLimits.windowSeconds, 10_000);
    for (let n = 0; n < 3; n++) {
      statuses.push((await app.inject({ method: 'GET', url: '/api/payments', headers })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(value(await scrape(), 'pis_rate_limit_refusals_total', { limit: 'api_reads' }) - before).toBe(1);
  }, 60_000);

  it('waiting reads in progress', async () => {
    const headers = await merchant();
    const payment = await created(app, headers, paymentBody({ flowType: 'HOSTED_PAGES' }));
    secrets.add(payment.paymentId);
    const first = await app.inject({ method: 'GET', url: `/api/payments/${payment.paymentId}`, headers });
    const waiting = app.inject({
      method: 'GET',
      url: `/api/payments/${payment.paymentId}`,
      headers: { ...headers, 'if-none-match': first.headers.etag as string, prefer: 'wait=2' },
    });
    await expect.poll(async () => value(await scrape(), 'pis_waiting_reads'), { timeout: 1_500 }).toBe(1);
    // Nothing changed: the wait times out and answers the current state.
    expect((await waiting).statusCode).toBe(200);
    expect(value(await scrape(), 'pis_waiting_reads')).toBe(0);
  });

  it('the sweep backlog and the timeline lag of a timed step applied by its job', async () => {
    const headers = await merchant();
    const payment = await created(app, headers, paymentBody({ flowType: 'API_ONLY' }));
    secrets.add(payment.paymentId);
    const approved = await app.inject({
      method: 'POST',
      url: `/api/payments/${payment.paymentId}/mock-bank/approve`,
      headers,
      payload: { completeAfterSeconds: 10 },
    });
    expect(approved.statusCode).toBe(200);
    // The test clock runs months behind the database's: the next step is already overdue there.
    const [row] = await orm.em
      .getConnection()
      .execute<{ next_due_at: string }[]>('select next_due_at from payment where id = ?', [
        payment.paymentId,
      ]);
    const dueAt = new Date(row?.next_due_at as string);
    const before = await scrape();
    expect(value(before, 'pis_sweep_backlog_payments')).toBeGreaterThanOrEqual(1);
    expect(value(before, 'pis_sweep_oldest_overdue_seconds')).toBeGreaterThan(60);

    // The job runs 2.5 s after the step fell due.
    clock.set(new Date(dueAt.getTime() + 2_500));
    const scheduler = { ...noopPaymentScheduler, paymentsDue: async () => {} };
    const deps = { em: orm.em, clock, scheduler, logger: silentLogger() };
    await paymentDueJob.handler(
      [{ paymentId: payment.paymentId, dueAt: dueAt.toISOString() }],
      {
        clock,
        logger: silentLogger(),
        catchUpPayments: (ids) => catchUpPayments(deps, ids),
        catchUpDuePayments: async () => ({ found: 0, changed: 0 }),
        findDuePaymentIds: async () => [],
        reconcileProviderClaims: async () => ({ open: 0 }),
        purgeExpiredIdempotencyKeys: async () => 0,
        purgeRateLimitWindows: async () => 0,
        purgeFinishedAnswers: async () => 0,
        mail: { deliver: async () => {}, failed: async () => {} },
      },
      new AbortController().signal,
    );
    const after = await scrape();
    expect(
      value(after, 'pis_timeline_lag_seconds_count') - value(before, 'pis_timeline_lag_seconds_count'),
    ).toBe(1);
    expect(
      value(after, 'pis_timeline_lag_seconds_sum') - value(before, 'pis_timeline_lag_seconds_sum'),
    ).toBeCloseTo(2.5, 1);
    expect(
      value(after, 'pis_timeline_lag_seconds_bucket', { le: '2' }) -
        value(before, 'pis_timeline_lag_seconds_bucket', { le: '2' }),
    ).toBe(0);
    expect(
      value(after, 'pis_timeline_lag_seconds_bucket', { le: '5' }) -
        value(before, 'pis_timeline_lag_seconds_bucket', { le: '5' }),
    ).toBe(1);
    // The job's catch-up appended the step: a transition of its own.
    expect(
      value(after, 'pis_payment_transitions_total') - value(before, 'pis_payment_transitions_total'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('the database pool: a held connection shows as in use', async () => {
    const connection = orm.em.getConnection();
    const held = connection.execute('select pg_sleep(0.8)');
    await expect
      .poll(async () => value(await scrape(), 'pis_db_pool_connections', { state: 'in_use' }), {
        timeout: 700,
      })
      .toBeGreaterThanOrEqual(1);
    await held;
    const text = await scrape();
    expect(value(text, 'pis_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^pis_db_pool_connections\{state="waiting"\} \d+$/m);
  });
});

describe('labels', () => {
  it('never carry an id or a client-chosen value, however hostile the request', async () => {
    const headers = await merchant();
    const hostile = [
      '/api/payments/pay_"}evil{x="1',
      `/api/${'a'.repeat(300)}`,
      '/trpc/payments.list,payments.get,dashboard.whatever',
      '/not/a/route/9f3b2c',
    ];
    for (const url of hostile) {
      await app.inject({
        method: 'GET',
        url: encodeURI(url),
        headers: {
          ...headers,
          'x-request-id': 'hostile"} 1\nnext',
          traceparent: `00-${'f'.repeat(32)}-${'e'.repeat(16)}-01`,
        },
      });
    }
    const text = await scrape();
    const labelValues = new Set<string>();
    for (const match of text.matchAll(/[a-zA-Z_][a-zA-Z0-9_]*="((?:[^"\\]|\\.)*)"/g))
      labelValues.add(match[1] as string);
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const label of labelValues) {
      expect(label).not.toMatch(/pay_|org_|pis_|evil|aaaa|9f3b2c|hostile|ffff/);
      expect(label.length).toBeLessThan(80);
    }
    // Routes are templates from a closed set.
    const routes = [...text.matchAll(/http_route="([^"]*)"/g)].map((m) => m[1] as string);
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-zA-Z0-9/{}:.*_-]*)$/);
    expect(routes).toContain('/trpc/:path');
  });
});
