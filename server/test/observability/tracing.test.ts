import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { context, trace } from '@opentelemetry/api';
import type { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { paymentDueJob } from '../../src/jobs/payment-due-job.ts';
import { startTracing, type Tracing, withTraceContext } from '../../src/observability/tracing.ts';
import { CREATE_BODY, createWorkerTestApp, waitFor } from '../jobs/worker-harness.ts';

/**
 * Issue 20, item 3: spans for HTTP in, the tRPC procedure, database statements, the job batch
 * and provider calls; the approval's trace continues in the job that applies its timed steps.
 * Off (the first tests, before the SDK is started in this file's own worker) nothing is loaded.
 */
const harness = await createWorkerTestApp({ clock: systemClock });
const { app, factories, storedStatus } = harness;
const merchant = await factories.createMerchant();
const originalQuery = pg.Client.prototype.query;
let tracing: Tracing | undefined;
let memory: InMemorySpanExporter | undefined;
afterAll(async () => tracing?.shutdown());

const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

describe('tracing off (no OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('config: unset is off; an http(s) URL turns it on; anything else is refused', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'pis-tracing-'));
    expect(loadConfig({}, dataDir).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, dataDir).tracing).toBeUndefined();
    expect(
      loadConfig(
        { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'pis-api' },
        dataDir,
      ).tracing,
    ).toEqual({ endpoint: 'http://collector:4318', serviceName: 'pis-api' });
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, dataDir).tracing?.serviceName,
    ).toBe('payment-initiation-service');
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' }, dataDir)).toThrow(
      ConfigError,
    );
    expect(() =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'a\nb' }, dataDir),
    ).toThrow(ConfigError);
  });

  it('registers nothing, patches nothing, records nothing and adds nothing to job data', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { ...merchant.headers, traceparent: `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01` },
      payload: CREATE_BODY,
    });
    expect(response.statusCode).toBe(201);
    // No tracer provider, propagator or context manager was registered with the API.
    const registered = (globalThis as Record<symbol, Record<string, unknown> | undefined>)[OTEL_GLOBAL];
    expect(registered?.trace).toBeUndefined();
    expect(registered?.propagation).toBeUndefined();
    expect(registered?.context).toBeUndefined();
    expect(pg.Client.prototype.query).toBe(originalQuery);
    const span = trace.getTracer('x').startSpan('x');
    expect(span.isRecording()).toBe(false);
    const data = { paymentId: 'p' };
    expect(context.with(trace.setSpan(context.active(), span), () => withTraceContext(data))).toBe(data);
  });
});

describe('tracing on (in-memory exporter)', () => {
  it('one trace from the approval request through the timed jobs, with HTTP, tRPC, db and provider spans', async () => {
    const { InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace');
    const exporter = new InMemorySpanExporter();
    memory = exporter;
    tracing = await startTracing({ endpoint: 'http://127.0.0.1:9/', serviceName: 'pis-test' }, [
      new SimpleSpanProcessor({ exporter }),
    ]);
    const worker = await harness.startWorkerProcess();

    const created = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: { ...merchant.headers, 'x-request-id': 'req-trace-create-1' },
      payload: CREATE_BODY,
    });
    expect(created.statusCode).toBe(201);
    const paymentId = created.json().data.paymentId as string;
    const approved = await app.inject({
      method: 'POST',
      url: `/api/payments/${paymentId}/mock-bank/approve`,
      headers: { ...merchant.headers, 'x-request-id': 'req-trace-approve-1' },
      payload: { completeAfterSeconds: 2 },
    });
    expect(approved.statusCode).toBe(200);
    expect(
      await waitFor(
        () => storedStatus(paymentId),
        (s) => s === 'COMPLETED',
        6_000,
      ),
    ).toBe('COMPLETED');
    await worker.stop();

    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const requestSpan = (requestId: string, kind: 'HTTP' | 'tRPC') =>
      spans.find(
        (span) =>
          span.attributes['pis.request_id'] === requestId &&
          (kind === 'HTTP' ? span.kind === 1 /* SERVER */ : span.name.startsWith('trpc ')),
      );

    // Creation: HTTP span, its tRPC procedure span, statements and the provider call beneath.
    const createHttp = requestSpan('req-trace-create-1', 'HTTP');
    const createTrpc = requestSpan('req-trace-create-1', 'tRPC');
    expect(createHttp).toBeDefined();
    expect(createTrpc?.parentSpanContext?.spanId).toBe(createHttp?.spanContext().spanId);
    const createTrace = spans.filter((s) => s.spanContext().traceId === createHttp?.spanContext().traceId);
    expect(createTrace.some((s) => s.attributes['db.system.name'] === 'postgresql')).toBe(true);
    const provider = createTrace.find((s) => s.attributes['pis.provider.operation'] === 'startPayment');
    expect(provider?.attributes['pis.provider']).toBe('mock');

    // Approval: the jobs that applied the timed steps are in the approval's trace, and each
    // one's parent chain reaches the approval's HTTP span.
    const approveHttp = requestSpan('req-trace-approve-1', 'HTTP');
    expect(approveHttp).toBeDefined();
    expect(requestSpan('req-trace-approve-1', 'tRPC')).toBeDefined();
    const traceId = approveHttp?.spanContext().traceId;
    const jobs = spans.filter(
      (s) => s.name === `job ${paymentDueJob.name}` && s.spanContext().traceId === traceId,
    );
    expect(jobs.length).toBeGreaterThanOrEqual(1);
    for (const job of jobs) {
      let at = job;
      const chain: string[] = [];
      while (at.parentSpanContext && byId.has(at.parentSpanContext.spanId)) {
        at = byId.get(at.parentSpanContext.spanId) as typeof at;
        chain.push(at.name);
      }
      expect(at.spanContext().spanId, chain.join(' <- ')).toBe(approveHttp?.spanContext().spanId);
    }
    // The job's own statements are in the trace too.
    const jobIds = new Set(jobs.map((j) => j.spanContext().spanId));
    expect(
      spans.some(
        (s) =>
          s.attributes['db.system.name'] === 'postgresql' && jobIds.has(s.parentSpanContext?.spanId ?? ''),
      ),
    ).toBe(true);
  });

  it("continues a caller's valid traceparent; a hostile one starts a fresh trace and goes nowhere", async () => {
    const exporter = memory as InMemorySpanExporter;
    exporter.reset();
    const given = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const hostile = [
      `${given} {"level":60,"msg":"forged"}`,
      `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01${'x'.repeat(100_000)}`,
      `00-${'C'.repeat(32)}-${'D'.repeat(16)}-01`,
      'garbage',
    ];
    const send = async (traceparent: string, requestId: string) => {
      const response = await app.inject({
        method: 'GET',
        url: '/api/payments',
        headers: { ...merchant.headers, traceparent, 'x-request-id': requestId },
      });
      expect(response.statusCode).toBe(200);
    };
    await send(given, 'req-trace-given');
    for (const [n, header] of hostile.entries()) await send(header, `req-trace-hostile-${n}`);

    const spans = exporter.getFinishedSpans();
    const http = (requestId: string) =>
      spans.find((s) => s.kind === 1 && s.attributes['pis.request_id'] === requestId);
    expect(http('req-trace-given')?.spanContext().traceId).toBe('a'.repeat(32));
    expect(http('req-trace-given')?.parentSpanContext?.spanId).toBe('b'.repeat(16));
    for (const n of hostile.keys()) {
      const span = http(`req-trace-hostile-${n}`);
      expect(span).toBeDefined();
      expect(span?.parentSpanContext).toBeUndefined();
      expect(['a', 'c', 'C'].map((c) => c.repeat(32))).not.toContain(span?.spanContext().traceId);
    }
    // The header's text is in no attribute of any span (nor in a log line or metric label:
    // nothing but the propagator reads it).
    expect(JSON.stringify(spans.map((s) => s.attributes))).not.toMatch(/forged|xxxx|garbage/);
  });

  it("a caller's refusal (401) is a span of its own, not an error span", async () => {
    const exporter = memory as InMemorySpanExporter;
    exporter.reset();
    const refused = await app.inject({
      method: 'GET',
      url: '/api/payments',
      headers: { 'x-api-key': 'pis_test_not-a-key', 'x-request-id': 'req-trace-refused' },
    });
    expect(refused.statusCode).toBe(401);
    const procedure = exporter
      .getFinishedSpans()
      .find((s) => s.name === 'trpc payments.list' && s.attributes['pis.request_id'] === 'req-trace-refused');
    expect(procedure).toBeDefined();
    expect(procedure?.status.code).not.toBe(2); // SpanStatusCode.ERROR
    expect(procedure?.events).toEqual([]);
  });
});
