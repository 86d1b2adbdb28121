import { createRequire } from 'node:module';
import {
  type Context,
  context,
  type Link,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';

/**
 * Traces (issue 20, item 3): explicit spans with @opentelemetry/api around the few points that
 * matter (HTTP in, tRPC procedure, database statement, job batch, provider call). Without
 * OTEL_EXPORTER_OTLP_ENDPOINT nothing of the SDK is loaded and no provider is registered, so
 * every `startSpan` below returns the API's non-recording span: no allocation of attributes,
 * no export, no context manager. Code here checks `isRecording()` before building anything.
 */
export const tracer = trace.getTracer('pis');

/** Whether startTracing ran in this process: until then the HTTP hooks return at once. */
let started = false;

/** What a started SDK gives back: flushed and stopped at shutdown. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts the Node SDK exporting over OTLP/HTTP (the SDK reads the endpoint, headers and the
 * like from the standard OTEL_* variables itself). Loaded by dynamic import so a process
 * without the endpoint never loads a module of the SDK. The pg patch goes in here too.
 */
export async function startTracing(
  options: { endpoint: string; serviceName: string },
  /** Tests: where spans go instead of OTLP (an in-memory exporter behind a simple processor). */
  spanProcessors?: SpanProcessor[],
): Promise<Tracing> {
  const [{ NodeSDK }, { OTLPTraceExporter }, { BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace'),
  ]);
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors: spanProcessors ?? [
      new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: tracesUrl(options.endpoint) }) }),
    ],
    // Only the spans below: no auto-instrumentation; metrics stay Prometheus's, logs pino's.
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  started = true;
  await traceDatabaseStatements();
  return { shutdown: () => sdk.shutdown() };
}

/** OTEL_EXPORTER_OTLP_ENDPOINT is the base; traces go to its /v1/traces (as the spec says). */
const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, '')}/v1/traces`;

// ---------------------------------------------------------------------------------------------
// HTTP in

const REQUEST_SPAN = Symbol('pis.request-span');
type WithSpan = FastifyRequest & { [REQUEST_SPAN]?: Span };

/**
 * A W3C traceparent is 55 characters; anything longer, or not of its shape, is dropped before
 * the propagator sees it, so a hostile header only ever costs a regex on at most 55 characters
 * and starts a fresh trace. Its text never reaches a log line or a metric label (only the ids
 * the propagator parsed become the parent of the span).
 */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const TRACESTATE_MAX = 512;

function carrierOf(headers: FastifyRequest['headers']): Record<string, string> {
  const carrier: Record<string, string> = {};
  const parent = headers.traceparent;
  if (typeof parent === 'string' && parent.length === 55 && TRACEPARENT.test(parent)) {
    carrier.traceparent = parent;
    const state = headers.tracestate;
    if (typeof state === 'string' && state.length <= TRACESTATE_MAX) carrier.tracestate = state;
  }
  return carrier;
}

/** A server span per request, from onRequest to onResponse, carrying the request id. */
export function traceHttp(app: FastifyInstance): void {
  // Callback hooks: they run on every request, and off (the default) they only return.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    // Off: not even the propagator's parse of the headers.
    if (!started) return done();
    const parent = propagation.extract(context.active(), carrierOf(request.headers));
    const span = tracer.startSpan(
      `${request.method} ${request.routeOptions.url ?? 'unmatched'}`,
      { kind: SpanKind.SERVER },
      parent,
    );
    if (span.isRecording()) {
      span.setAttributes({
        'http.request.method': request.method,
        'http.route': request.routeOptions.url ?? 'unmatched',
        'pis.request_id': request.id,
      });
      (request as WithSpan)[REQUEST_SPAN] = span;
    }
    done();
  });
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const span = (request as WithSpan)[REQUEST_SPAN];
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });
}

/** The request's span as the active context (hooks cannot wrap what comes after them). */
export function requestContext(request: FastifyRequest): Context {
  const span = (request as WithSpan)[REQUEST_SPAN];
  return span ? trace.setSpan(context.active(), span) : context.active();
}

// ---------------------------------------------------------------------------------------------
// Spans around a piece of work

/** Runs `work` in a span (child of the active one, or of `parent`), ended when it settles. */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean | undefined>,
  work: () => Promise<T>,
  options: {
    kind?: SpanKind;
    parent?: Context;
    links?: Link[];
    /** Whether a thrown error is the span's failure (default: any); a client's refusal is not. */
    failed?: (error: unknown) => boolean;
  } = {},
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, ...(options.links ? { links: options.links } : {}) },
    parent,
  );
  if (!span.isRecording()) return work();
  for (const [key, value] of Object.entries(attributes))
    if (value !== undefined) span.setAttribute(key, value);
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    if (options.failed && !options.failed(error)) throw error;
    // The error's kind, never its message or stack: a mailer's error names the recipient, a
    // bank's may quote its answer, a database error the row (issue 31 item 2, its review).
    span.recordException({ name: errorKindOf(error), message: errorKindOf(error) });
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}

/** An error's class, and its code where it has one (an AppError's kind, a Postgres SQLSTATE). */
function errorKindOf(error: unknown): string {
  if (!(error instanceof Error)) return 'non-error thrown';
  const code = (error as { kind?: unknown; code?: unknown }).kind ?? (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Za-z0-9_.-]{1,60}$/.test(code)
    ? `${error.name} ${code}`
    : error.name;
}

// ---------------------------------------------------------------------------------------------
// Jobs: the trace travels in the job's data

/** The job data field holding the W3C traceparent of the context that sent the job. */
export const TRACE_FIELD = 'traceparent';

/** `data` with the active trace context added (unchanged when nothing is being traced). */
export function withTraceContext(data: object): object {
  if (!trace.getSpan(context.active())?.isRecording()) return data;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? { ...data, [TRACE_FIELD]: carrier.traceparent } : data;
}

/**
 * The job batch's span: the parent is the first job's sender (a batch of one, the usual case
 * for a timed step, joins its approval's trace); every sender is a link.
 */
export function jobBatchTrace(data: readonly unknown[]): { parent: Context; links: Link[] } {
  const links: Link[] = [];
  let parent: Context | undefined;
  for (const item of data) {
    const value = (item as Record<string, unknown> | null)?.[TRACE_FIELD];
    if (typeof value !== 'string' || value.length !== 55 || !TRACEPARENT.test(value)) continue;
    const extracted = propagation.extract(context.active(), { traceparent: value });
    const spanContext = trace.getSpanContext(extracted);
    if (!spanContext) continue;
    parent ??= extracted;
    links.push({ context: spanContext });
  }
  return { parent: parent ?? context.active(), links };
}

/** Whether a recording span is active (cheap guard for callers). */
export const tracingActive = () => trace.getSpan(context.active())?.isRecording() === true;

// ---------------------------------------------------------------------------------------------
// Database statements

let pgPatched = false;

/**
 * A client span around every promise-style `pg` query made inside a traced piece of work (the
 * ORM's and pg-boss's: MikroORM has its own copy of pg, so both copies' Client are wrapped).
 * Statements without a parent span (pg-boss's polling) get none. The statement's text is
 * recorded (`db.query.text`) only when its values travel apart from it, as bound parameters;
 * otherwise only what it does and to which table (`db.query.summary`, "insert payment"):
 * MikroORM 7 inlines values into the text it sends, and such a text held TOTP secrets, password
 * hashes, link tokens and account numbers (issue 31 item 2).
 */
export async function traceDatabaseStatements(): Promise<void> {
  if (pgPatched) return;
  pgPatched = true;
  const fromOrm = createRequire(import.meta.resolve('@mikro-orm/postgresql'));
  const clients = new Set([(await import('pg')).default.Client, (fromOrm('pg') as typeof pg).Client]);
  for (const Client of clients) wrapQuery(Client);
}

/**
 * What a statement does and to which table, from its text, never its values: the operation (its
 * first word; a `with` is named by the statement that follows its CTEs, as far as it can tell)
 * and the first table it names after from, into, update or join.
 */
export function querySummary(text: string): string {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase() ?? 'query';
  const table = /\b(?:from|into|update|join)\s+("?[A-Za-z_][\w.]*"?)/i.exec(text)?.[1]?.replaceAll('"', '');
  return table ? `${operation} ${table}` : operation;
}

function wrapQuery(Client: typeof pg.Client): void {
  const original = Client.prototype.query as (...args: unknown[]) => unknown;
  Client.prototype.query = function tracedQuery(this: unknown, ...args: unknown[]) {
    const first = args[0] as { text?: unknown; submit?: unknown } | string | undefined;
    const submittable = typeof first === 'object' && first !== null && typeof first.submit === 'function';
    if (submittable || !tracingActive()) return original.apply(this, args);
    const text = typeof first === 'string' ? first : typeof first?.text === 'string' ? first.text : '';
    const values = typeof first === 'object' && first !== null && 'values' in first ? first.values : args[1];
    const summary = querySummary(text);
    const span = tracer.startSpan(summary, {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': 'postgresql',
        'db.query.summary': summary,
        ...(Array.isArray(values) && values.length > 0 ? { 'db.query.text': text.slice(0, 2_000) } : {}),
      },
    });
    const end = (error: unknown) => {
      if (error) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    };
    const last = args.length - 1;
    const callback = args[last];
    // pg-pool's `pool.query` (the ORM's path) calls the client with a callback.
    if (typeof callback === 'function') {
      args[last] = (error: unknown, ...rest: unknown[]) => {
        end(error);
        return callback(error, ...rest);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args) as Promise<unknown>;
    return result.then(
      (value) => {
        end(undefined);
        return value;
      },
      (error: unknown) => {
        end(error);
        throw error;
      },
    );
  } as typeof Client.prototype.query;
}
