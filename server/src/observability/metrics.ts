import { FLOW_TYPES, type HistoryRecord, PAYMENT_STATUSES, type PaymentRecord } from '@pis/shared';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's metrics (prom-client), served on their own listener (metrics-server.ts), never
 * on the public port. One registry per process: the instruments below are module state so that
 * any part of the service can count without being handed a registry.
 *
 * Every label value comes from a closed set (HTTP methods, route templates, provider codes the
 * process has adapters for, statuses, flows, outcomes): an id, a key or anything a client sent
 * can never become a label, so the number of series stays bounded (metrics.test.ts checks).
 * Names follow OpenTelemetry's semantic conventions where they have one (HTTP), else `pis_`.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });

const registers = [metricsRegistry];
/** A value outside a label's closed set. */
export const OTHER = '_OTHER';

/** OpenTelemetry's advice for http.server.request.duration, plus 30/60 s for waiting reads. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60];

export const httpRequestDuration = new Histogram({
  name: 'http_server_request_duration_seconds',
  help: 'Duration of HTTP server requests, by method, route template (never a raw path) and status code.',
  labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
  buckets: HTTP_BUCKETS,
  registers,
});

export const paymentsCreated = new Counter({
  name: 'pis_payments_created_total',
  help: 'Payments created by this process, by provider and flow.',
  labelNames: ['provider', 'flow'] as const,
  registers,
});

export const transitionsApplied = new Counter({
  name: 'pis_payment_transitions_total',
  help: 'Payment status changes applied by this process (history entries appended), by provider, new status and flow.',
  labelNames: ['provider', 'status', 'flow'] as const,
  registers,
});

export const timelineLag = new Histogram({
  name: 'pis_timeline_lag_seconds',
  help: 'How late a timed step was applied by its job: applied time minus due time.',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300],
  registers,
});

export const providerCallDuration = new Histogram({
  name: 'pis_provider_call_duration_seconds',
  help: 'Calls to payment providers, by provider, operation and outcome (ok, error, unknown: may have reached the bank).',
  labelNames: ['provider', 'operation', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers,
});

export const providerReadsCapped = new Counter({
  name: 'pis_provider_reads_capped_total',
  help: "Reads of a payment at its bank not made: the payment's cap for the window was spent (a merchant polling in a loop); the read answered what was known.",
  labelNames: ['provider'] as const,
  registers,
});

export const rateLimitRefusals = new Counter({
  name: 'pis_rate_limit_refusals_total',
  help: 'Requests refused with 429 by a rate limit, by budget (api_reads, api_writes, pages, dashboard, bank_notifications).',
  labelNames: ['limit'] as const,
  registers,
});

export const signInFailures = new Counter({
  name: 'pis_sign_in_failures_total',
  help: 'Refused dashboard sign-ins, by account: known (audited in its organization), unknown (no such account), throttled.',
  labelNames: ['account'] as const,
  registers,
});

export const requestLogDropped = new Counter({
  name: 'pis_request_log_dropped_total',
  help: 'Request log entries not written, by reason: queue_full or write_failed (the log has a gap), organization_share, daily_ceiling or refusals (one organization past its share, its day or its refused requests a minute).',
  labelNames: ['reason'] as const,
  registers,
});

/** Sources read at scrape time; a process attaches what it has (attachMetricSources). */
interface Sources {
  waitingReads?: () => number;
  pool?: () => { total: number; idle: number; waiting: number } | undefined;
  sweepBacklog?: () => Promise<{ overdue: number; oldestSeconds: number }>;
}
const sources: Sources = {};

/** Counted at scrape time, capped: a backlog larger than this shows as this. */
export const BACKLOG_CAP = 10_000;

new Gauge({
  name: 'pis_waiting_reads',
  help: 'Reads waiting for a payment to change (Prefer: wait, the dashboard live page) in this process.',
  registers,
  collect() {
    this.set(sources.waitingReads?.() ?? 0);
  },
});

new Gauge({
  name: 'pis_db_pool_connections',
  help: "The service's database pool in this process, by state (in_use, idle, waiting: requests queued for a connection).",
  labelNames: ['state'] as const,
  registers,
  collect() {
    const pool = sources.pool?.();
    if (!pool) return;
    this.set({ state: 'in_use' }, pool.total - pool.idle);
    this.set({ state: 'idle' }, pool.idle);
    this.set({ state: 'waiting' }, pool.waiting);
  },
});

const oldestOverdue = new Gauge({
  name: 'pis_sweep_oldest_overdue_seconds',
  help: 'Age of the oldest overdue timeline step (next_due_at in the past) across the database; 0 when none.',
  registers,
});

new Gauge({
  name: 'pis_sweep_backlog_payments',
  help: `Unfinished payments whose next step is overdue, across the database (what the sweep has left to do; capped at ${BACKLOG_CAP}).`,
  registers,
  async collect() {
    if (!sources.sweepBacklog) return;
    try {
      const { overdue, oldestSeconds } = await sources.sweepBacklog();
      this.set(overdue);
      oldestOverdue.set(oldestSeconds);
    } catch {
      // A scrape during a database outage shows the last values; /ready says what is wrong.
    }
  },
});

export function attachMetricSources(attached: Sources): void {
  Object.assign(sources, attached);
}

const STATUSES = new Set<string>(PAYMENT_STATUSES);
const FLOWS = new Set<string>(FLOW_TYPES);
/** Provider codes with an adapter in this process (instrumentProviders adds them). */
const knownProviders = new Set<string>();

export const knownProvider = (code: string): void => {
  knownProviders.add(code);
};
const provider = (code: string | null | undefined) => (code && knownProviders.has(code) ? code : OTHER);
const flow = (value: string) => (FLOWS.has(value) ? value : OTHER);
const status = (value: string) => (STATUSES.has(value) ? value : OTHER);

/** A payment was created (its first history entries are transitions too). */
export function countCreated(
  record: Pick<PaymentRecord, 'provider' | 'flowType'>,
  history: readonly HistoryRecord[],
): void {
  paymentsCreated.inc({ provider: provider(record.provider), flow: flow(record.flowType) });
  countTransitions(record, history);
}

/** History entries appended to a payment: one transition each. */
export function countTransitions(
  record: Pick<PaymentRecord, 'provider' | 'flowType'>,
  appended: readonly Pick<HistoryRecord, 'status'>[],
): void {
  for (const entry of appended) {
    transitionsApplied.inc({
      provider: provider(record.provider),
      status: status(entry.status),
      flow: flow(record.flowType),
    });
  }
}
