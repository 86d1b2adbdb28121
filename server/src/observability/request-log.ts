import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { prefixOf } from '../auth/api-key-secret.ts';
import type { Orm } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { RouteResolver } from './http-metrics.ts';
import { maskedBody, maskText } from './masking.ts';
import { requestLogDropped } from './metrics.ts';

/**
 * The merchant's request log (issue 20, item 4): every /api request made with one of an
 * organization's keys, kept 30 days. Nothing is written on the request's path: the onResponse
 * hook (after the answer went out) queues a few fields and references to the bodies; a timer
 * masks the bodies and writes the queue in one statement per batch, each entry under the
 * organization the key check found for its key (noteRequestKeyOwner; a key that matches no
 * stored key is not logged: it belongs to nobody).
 * A full queue (the database far behind) drops entries and counts them
 * (`pis_request_log_dropped_total`) rather than growing without bound or slowing requests.
 */

export const REQUEST_LOG_RETENTION_DAYS = 30;
const FLUSH_EVERY_MS = 1_000;
/**
 * A busy instance writes as soon as this many are queued, not once a second: an entry (its
 * response text) that waits a second outlives the young generation and is copied into the old
 * one, which cost the GC more than the whole rest of the log (measured: docs/decisions/021).
 */
const FLUSH_AT = 100;
const BATCH = 500;
const MAX_QUEUED = 20_000;

export interface RequestLogEntry {
  /** The organization whose key this was (its hash matched a stored key), never guessed from text. */
  organizationId: string;
  at: Date;
  method: string;
  route: string;
  status: number;
  durationMs: number;
  keyPrefix: string;
  requestId: string;
  idempotencyKey: string | null;
  requestBody: unknown;
  responseBody: unknown;
}

export class RequestLogWriter {
  readonly #orm: Orm;
  readonly #logger: Logger;
  #queue: RequestLogEntry[] = [];
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  readonly #flushAt: number;

  constructor(orm: Orm, logger: Logger, options: { flushEveryMs?: number; flushAt?: number } = {}) {
    this.#orm = orm;
    this.#logger = logger;
    this.#flushAt = options.flushAt ?? FLUSH_AT;
    this.#timer = setInterval(() => void this.flush(), options.flushEveryMs ?? FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  add(entry: RequestLogEntry): void {
    if (this.#queue.length >= MAX_QUEUED) {
      requestLogDropped.inc();
      return;
    }
    this.#queue.push(entry);
    if (this.#queue.length === this.#flushAt) void this.flush();
  }

  /** Writes what is queued (one flush at a time; a failed batch is logged and dropped). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, BATCH);
        try {
          await writeBatch(this.#orm, batch);
        } catch (error) {
          requestLogDropped.inc(batch.length);
          this.#logger.warn({ err: error, entries: batch.length }, 'request log batch not written');
        }
      }
    });
    return this.#flushing;
  }

  /** Shutdown, after HTTP stopped: the last entries go out before the pool closes. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}

async function writeBatch(orm: Orm, batch: RequestLogEntry[]): Promise<void> {
  const rows = batch.map((entry) => ({
    organization_id: entry.organizationId,
    at: entry.at.toISOString(),
    method: entry.method,
    route: entry.route,
    status: entry.status,
    error_code: errorCodeOf(entry.status, entry.responseBody),
    duration_ms: Math.round(entry.durationMs),
    key_prefix: entry.keyPrefix,
    // Both are the caller's text: a key pasted into one is cut like anywhere else.
    request_id: maskText(entry.requestId),
    idempotency_key: entry.idempotencyKey === null ? null : maskText(entry.idempotencyKey),
    request_body: maskedBody(entry.requestBody),
    response_body:
      entry.method === 'GET' ? maskedReadAnswer(entry.responseBody) : maskedBody(entry.responseBody),
  }));
  // On the pool itself, the batch as one bound parameter: the ORM's execute would escape the
  // whole JSON text into the statement (a visible share of a busy API's CPU in the profile).
  const pool = await orm.em.getConnection().getNativeClient();
  await pool.query({ name: 'request_log_batch', text: INSERT_BATCH, values: [JSON.stringify(rows)] });
}

const INSERT_BATCH = `insert into request_log (organization_id, at, method, route, status, error_code, duration_ms,
    key_prefix, request_id, idempotency_key, request_body, response_body)
  select e.organization_id, e.at, e.method, e.route, e.status, e.error_code, e.duration_ms,
    e.key_prefix, e.request_id, e.idempotency_key, e.request_body, e.response_body
  from json_to_recordset($1::json) as e(organization_id text, at timestamptz, method text,
    route text, status int, error_code text, duration_ms int, key_prefix text, request_id text,
    idempotency_key text, request_body text, response_body text)`;

/**
 * A poll is answered the same text again and again (a payment read until it moves): the masked
 * form of a recent read's answer is kept for the next identical one (masking a payment's answer
 * costs ~16 µs, its hash ~2). Keyed by the answer's SHA-256, never by its text: the text holds
 * account numbers and link tokens in clear, which must not outlive the batch in memory. Only
 * short texts (a payment's answer is ~1.4 KB; lists rarely repeat); emptied when full.
 */
const REMEMBERED_ANSWERS = 500;
const REMEMBERED_ANSWER_CHARS = 4_096;
const maskedAnswers = new Map<string, string | null>();

function maskedReadAnswer(body: unknown): string | null {
  if (typeof body !== 'string' || body.length > REMEMBERED_ANSWER_CHARS) return maskedBody(body);
  const digest = hash('sha256', body, 'base64');
  let masked = maskedAnswers.get(digest);
  if (masked === undefined) {
    masked = maskedBody(body);
    if (maskedAnswers.size >= REMEMBERED_ANSWERS) maskedAnswers.clear();
    maskedAnswers.set(digest, masked);
  }
  return masked;
}

/** The envelope's `error.code` of a failed answer, bounded. */
function errorCodeOf(status: number, body: unknown): string | null {
  if (status < 400) return null;
  try {
    const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === 'string' && /^[A-Z0-9_]{1,60}$/.test(code) ? code : null;
  } catch {
    return null;
  }
}

/** Deletes entries past the retention, in slices (workers, hourly). Resolves to how many went. */
export async function purgeRequestLog(orm: Orm): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await orm.em.getConnection().execute(
      `delete from request_log where id in (
         select id from request_log where at < now() - make_interval(days => ?) limit 5000)`,
      [REQUEST_LOG_RETENTION_DAYS],
      'run',
    );
    const count = (deleted as { affectedRows?: number }).affectedRows ?? 0;
    total += count;
    if (count < 5_000) return total;
  }
}

/** Workers purge the log hourly (and once at start); several workers purging at once is harmless. */
export function startRequestLogRetention(orm: Orm, logger: Logger): { stop(): void } {
  const purge = () =>
    purgeRequestLog(orm).then(
      (deleted) => {
        if (deleted > 0) logger.info({ deleted }, 'request log entries past retention deleted');
      },
      (error: unknown) =>
        logger.warn({ err: error }, 'request log retention did not run; trying again in an hour'),
    );
  void purge();
  const timer = setInterval(purge, 60 * 60 * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

const KEY_OWNER = Symbol('pis.request-log.key-owner');
const SENT = Symbol('pis.request-log.sent');
type Logged = FastifyRequest & { [KEY_OWNER]?: string; [SENT]?: string | Buffer };

/**
 * Called by the key check once the presented key's hash matched a stored key (revoked or
 * expired included: its owner may want to see those refusals): the request is logged under that
 * key's organization. A key that matches nothing belongs to nobody and is not logged, whatever
 * prefix it shows: a prefix is not secret, and a stranger must not write into a merchant's log.
 */
export function noteRequestKeyOwner(request: FastifyRequest, organizationId: string): void {
  (request as Logged)[KEY_OWNER] = organizationId;
}

/**
 * The app's part: /api requests whose key the key check matched (noteRequestKeyOwner). The
 * response body is taken as it is sent (onSend, on the root: /api's answers and envelopes are
 * made before any hook sees them) and the entry queued in onResponse. Callback hooks, not
 * async ones: they run on every request.
 */
export function requestLogHooks(
  app: FastifyInstance,
  writer: RequestLogWriter,
  routeOf: RouteResolver,
): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // What went over the wire: HEAD, 204 and 304 answers carry no body (Fastify drops it later).
    if (
      (request as Logged)[KEY_OWNER] !== undefined &&
      (typeof payload === 'string' || Buffer.isBuffer(payload)) &&
      request.method !== 'HEAD' &&
      reply.statusCode !== 204 &&
      reply.statusCode !== 304
    ) {
      (request as Logged)[SENT] = payload;
    }
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const organizationId = (request as Logged)[KEY_OWNER];
    const key = request.headers['x-api-key'];
    const keyPrefix = typeof key === 'string' ? prefixOf(key) : undefined;
    if (organizationId !== undefined && keyPrefix && request.url.startsWith('/api/')) {
      const idempotencyKey = request.headers['idempotency-key'];
      writer.add({
        organizationId,
        at: new Date(Date.now() - reply.elapsedTime),
        method: request.method.slice(0, 10),
        route: routeOf(request),
        status: reply.statusCode,
        durationMs: reply.elapsedTime,
        keyPrefix,
        requestId: request.id.slice(0, 128),
        idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey.slice(0, 255) : null,
        requestBody: request.body,
        responseBody: (request as Logged)[SENT],
      });
    }
    done();
  });
}
