import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { prefixOf } from '../auth/api-key-secret.ts';
import { affectedRows, type Orm } from '../db/orm.ts';
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
 *
 * What one organization can make it hold is bounded, so a free sign-up looping big bodies at its
 * own refusals fills neither the disk nor other merchants' share (issue 31 item 1):
 * - a request refused before its procedure ran (the key revoked or expired, the organization
 *   inactive, a missing permission, over budget) and every 429 is logged without its bodies:
 *   method, route, status and time say what happened;
 * - each organization writes at most `rowsPerDay` entries a UTC day (a tenth for one on reduced
 *   budgets, as its API budgets are), counted in `request_log_day` by the batch's own statement;
 *   past it entries are dropped and counted;
 * - each organization queues at most ORGANIZATION_QUEUE_SHARE entries in a process, so while the
 *   writer lags one organization's flood drops its own entries, never another's; an organization
 *   past its day's ceiling is not queued at all for the rest of the day, and refused requests
 *   (which spend no budget) at most REFUSALS_PER_MINUTE a minute.
 * Every entry not written is counted in `pis_request_log_dropped_total` by reason.
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
/** One organization's part of the queue: a tenth, so ten floods at once still leave room. */
export const ORGANIZATION_QUEUE_SHARE = MAX_QUEUED / 10;
/** The deployment's default entries per organization a UTC day (REQUEST_LOG_ROWS_PER_DAY). */
export const DEFAULT_ROWS_PER_DAY = 200_000;
/**
 * Refused requests (no bodies) an organization queues a minute in a process: refusals spend no
 * budget (a revoked key's 401 costs the caller nothing), so without this one organization's
 * loop, or ten free sign-ups', could still fill the queue. Past it they are counted, not logged.
 */
export const REFUSALS_PER_MINUTE = 100;

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
  /**
   * Whether the bodies are stored: not for a refused request (then `requestBody` is not even
   * held: it may be the 100 KB a flood sends; `responseBody`, a small envelope, gives the code).
   */
  bodies: boolean;
  requestBody: unknown;
  responseBody: unknown;
}

export class RequestLogWriter {
  readonly #orm: Orm;
  readonly #logger: Logger;
  #queue: RequestLogEntry[] = [];
  /** Entries queued per organization (its share of the queue). */
  readonly #queuedBy = new Map<string, number>();
  /** Refused requests queued per organization in the current minute. */
  #refusals = { minute: 0, by: new Map<string, number>() };
  /** Organizations past today's ceiling (the UTC day it was seen): their entries are not queued. */
  readonly #overCeiling = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  readonly #flushAt: number;
  readonly #rowsPerDay: number;

  constructor(
    orm: Orm,
    logger: Logger,
    options: { flushEveryMs?: number; flushAt?: number; rowsPerDay?: number } = {},
  ) {
    this.#orm = orm;
    this.#logger = logger;
    this.#flushAt = options.flushAt ?? FLUSH_AT;
    this.#rowsPerDay = options.rowsPerDay ?? DEFAULT_ROWS_PER_DAY;
    this.#timer = setInterval(() => void this.flush(), options.flushEveryMs ?? FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  add(entry: RequestLogEntry): void {
    // The day's text only for an organization past its ceiling: made for every entry, it was a
    // visible share of a GET's CPU.
    const ceilingDay = this.#overCeiling.get(entry.organizationId);
    if (ceilingDay !== undefined && ceilingDay === utcDay(entry.at)) {
      requestLogDropped.inc({ reason: 'daily_ceiling' });
      return;
    }
    if (!entry.bodies && !this.#countRefusal(entry)) {
      requestLogDropped.inc({ reason: 'refusals' });
      return;
    }
    const queued = this.#queuedBy.get(entry.organizationId) ?? 0;
    if (queued >= ORGANIZATION_QUEUE_SHARE) {
      requestLogDropped.inc({ reason: 'organization_share' });
      return;
    }
    if (this.#queue.length >= MAX_QUEUED) {
      requestLogDropped.inc({ reason: 'queue_full' });
      return;
    }
    this.#queuedBy.set(entry.organizationId, queued + 1);
    this.#queue.push(entry);
    if (this.#queue.length === this.#flushAt) void this.flush();
  }

  /** Writes what is queued (one flush at a time; a failed batch is logged and dropped). */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, BATCH);
        for (const { organizationId } of batch) {
          const left = (this.#queuedBy.get(organizationId) ?? 1) - 1;
          if (left > 0) this.#queuedBy.set(organizationId, left);
          else this.#queuedBy.delete(organizationId);
        }
        try {
          const written = await writeBatch(this.#orm, batch, this.#rowsPerDay);
          if (written.length < batch.length) {
            requestLogDropped.inc({ reason: 'daily_ceiling' }, batch.length - written.length);
            this.#rememberCeilings(batch, written);
          }
        } catch (error) {
          requestLogDropped.inc({ reason: 'write_failed' }, batch.length);
          this.#logger.warn({ err: error, entries: batch.length }, 'request log batch not written');
        }
      }
    });
    return this.#flushing;
  }

  #countRefusal(entry: RequestLogEntry): boolean {
    const minute = Math.floor(entry.at.getTime() / 60_000);
    if (this.#refusals.minute !== minute) this.#refusals = { minute, by: new Map() };
    const count = (this.#refusals.by.get(entry.organizationId) ?? 0) + 1;
    this.#refusals.by.set(entry.organizationId, count);
    return count <= REFUSALS_PER_MINUTE;
  }

  /** An organization with entries not kept is past today's ceiling: drop its next ones at once. */
  #rememberCeilings(batch: RequestLogEntry[], written: string[]): void {
    const kept = new Map<string, number>();
    for (const organizationId of written) kept.set(organizationId, (kept.get(organizationId) ?? 0) + 1);
    const sent = new Map<string, number>();
    for (const { organizationId } of batch) sent.set(organizationId, (sent.get(organizationId) ?? 0) + 1);
    const today = utcDay(new Date());
    if (this.#overCeiling.size > 10_000) this.#overCeiling.clear();
    for (const [organizationId, count] of sent) {
      if ((kept.get(organizationId) ?? 0) < count) this.#overCeiling.set(organizationId, today);
    }
  }

  /** Shutdown, after HTTP stopped: the last entries go out before the pool closes. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}

const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/** Writes a batch; resolves to the organization of each entry kept (the rest were past a daily ceiling). */
async function writeBatch(orm: Orm, batch: RequestLogEntry[], rowsPerDay: number): Promise<string[]> {
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
    request_body: entry.bodies ? maskedBody(entry.requestBody) : null,
    response_body: !entry.bodies
      ? null
      : entry.method === 'GET'
        ? maskedReadAnswer(entry.responseBody)
        : maskedBody(entry.responseBody),
  }));
  // On the pool itself, the batch as one bound parameter: the ORM's execute would escape the
  // whole JSON text into the statement (a visible share of a busy API's CPU in the profile).
  const pool = await orm.em.getConnection().getNativeClient();
  const written = await pool.query<{ organization_id: string }>({
    name: 'request_log_batch',
    text: INSERT_BATCH,
    values: [JSON.stringify(rows), rowsPerDay],
  });
  return written.rows.map((row) => row.organization_id);
}

/**
 * One statement a batch: the entries, each organization's count for the day raised by its
 * entries in the batch (an upsert per organization, not per row), and only the entries within
 * the organization's ceiling kept: `n`, an entry's place among its organization's in the batch,
 * added to the day's count before the batch. Several instances' batches queue on the count's row.
 */
const INSERT_BATCH = `with e as (
    select e.*, row_number() over (partition by e.organization_id order by e.at) as n
    from json_to_recordset($1::json) as e(organization_id text, at timestamptz, method text,
      route text, status int, error_code text, duration_ms int, key_prefix text, request_id text,
      idempotency_key text, request_body text, response_body text)
  ), added as (
    select organization_id, count(*) as entries from e group by organization_id
  ), counted as (
    insert into request_log_day as d (organization_id, day, entries)
    select organization_id, (now() at time zone 'utc')::date, entries from added order by organization_id
    on conflict (organization_id, day) do update set entries = d.entries + excluded.entries
    returning d.organization_id, d.entries
  )
  insert into request_log (organization_id, at, method, route, status, error_code, duration_ms,
    key_prefix, request_id, idempotency_key, request_body, response_body)
  select e.organization_id, e.at, e.method, e.route, e.status, e.error_code, e.duration_ms,
    e.key_prefix, e.request_id, e.idempotency_key, e.request_body, e.response_body
  from e join added a using (organization_id) join counted c using (organization_id)
    join organization o on o.id = e.organization_id
  where c.entries - a.entries + e.n <= case when o.reduced_budgets then $2::int / 10 else $2::int end
  returning organization_id`;

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
    const count = affectedRows(deleted);
    total += count;
    if (count < 5_000) break;
  }
  // The daily counts outlive their entries by a day (one row per organization a day).
  await orm.em
    .getConnection()
    .execute(
      `delete from request_log_day where day < (now() at time zone 'utc')::date - ?::int`,
      [REQUEST_LOG_RETENTION_DAYS + 1],
      'run',
    );
  return total;
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
const ADMITTED = Symbol('pis.request-log.admitted');
const SENT = Symbol('pis.request-log.sent');
type Logged = FastifyRequest & { [KEY_OWNER]?: string; [ADMITTED]?: boolean; [SENT]?: string | Buffer };

/**
 * Called by the key check once the presented key's hash matched a stored key (revoked or
 * expired included: its owner may want to see those refusals): the request is logged under that
 * key's organization. A key that matches nothing belongs to nobody and is not logged, whatever
 * prefix it shows: a prefix is not secret, and a stranger must not write into a merchant's log.
 * `admitted`: the request passed every check (key, organization, permission, budget) and reached
 * its procedure; only then are its bodies logged.
 */
export function noteRequestKeyOwner(request: FastifyRequest, organizationId: string, admitted = false): void {
  (request as Logged)[KEY_OWNER] = organizationId;
  (request as Logged)[ADMITTED] = admitted;
}

/** A request's bodies are logged when it reached its procedure and was not refused for its budget. */
const keepsBodies = (request: FastifyRequest, status: number) =>
  (request as Logged)[ADMITTED] === true && status !== 429;

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
      const bodies = keepsBodies(request, reply.statusCode);
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
        bodies,
        requestBody: bodies ? request.body : undefined,
        responseBody: (request as Logged)[SENT],
      });
    }
    done();
  });
}
