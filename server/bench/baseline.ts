import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { maskedBody } from '../src/observability/masking.ts';

/**
 * The floor: bare Fastify + pg doing the least the product must do per request, each in ONE
 * statement on the same pool size as the service, logging off (issue 22; issue 32's decision:
 * the floor keeps what this product promises merchants on every request, not only the spec):
 * - every request proves its API key: the SHA-256 of the `x-api-key` header looked up by a
 *   unique index, the key neither revoked nor expired, its organization active, and the
 *   permission the request needs (write for create, read for get); else 401;
 * - create: the payment row and its two history rows (PENDING, AUTHORIZING: a create's answer
 *   and its later GET must show them), in the key's organization, in the same statement;
 * - get: the payment by id within the key's organization, with its history, as one JSON value
 *   (404 when the organization has no such payment).
 * - every answered request leaves a row in the merchant's request log (method, path, status,
 *   time, the request and answer bodies with account numbers masked), queued and written in
 *   batches of up to 500 (as soon as 100 are queued, else every second) in one statement each,
 *   into a table with the service's columns and indexes;
 * - with `countRequests` (the bench's `--rate-limits`), the request is counted against its
 *   organization's budget in one upsert, inside the key's statement.
 * No validation, ORM, idempotency, jobs, secondary payment indexes: the service's figures are
 * read as a fraction of these (docs/decisions/021-honest-floor.md).
 */

const TABLE = 'baseline_payment';
const HISTORY = 'baseline_payment_history';
const KEY = 'baseline_api_key';
const ORGANIZATION = 'baseline_organization';
const LOG = 'baseline_request_log';
const COUNTER = 'baseline_rate_limit';
const LOG_FLUSH_AT = 100;
const LOG_BATCH = 500;

export interface Baseline {
  app: FastifyInstance;
  /** The one key the floor's organization has (read and write). */
  apiKey: string;
  close(): Promise<void>;
}

export async function startBaseline(
  databaseUrl: string,
  poolMax: number,
  options: { countRequests?: boolean } = {},
): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
  pool.on('error', () => {});
  await pool.query(`
    create table if not exists ${ORGANIZATION} (id text primary key, active boolean not null);
    create table if not exists ${KEY} (
      id text primary key,
      organization_id text not null references ${ORGANIZATION} (id),
      key_hash text not null unique,
      can_read boolean not null,
      can_write boolean not null,
      revoked_at timestamptz,
      expires_at timestamptz
    );
    create table if not exists ${TABLE} (
      id text primary key,
      organization_id text not null,
      status text not null,
      amount_value numeric(19, 4) not null,
      amount_currency char(3) not null,
      to_account jsonb not null,
      reference jsonb not null,
      created_at timestamptz not null
    );
    create table if not exists ${HISTORY} (
      payment_id text not null references ${TABLE} (id),
      seq int not null,
      status text not null,
      timestamp timestamptz not null,
      primary key (payment_id, seq)
    );
    create table if not exists ${LOG} (
      id bigint generated always as identity primary key,
      organization_id varchar(40) not null,
      at timestamptz not null,
      method varchar(10) not null,
      route varchar(200) not null,
      status smallint not null,
      duration_ms integer not null,
      request_body text null,
      response_body text null
    );
    create index if not exists ${LOG}_organization_at on ${LOG} (organization_id, at desc, id desc);
    create index if not exists ${LOG}_at on ${LOG} (at);
    create table if not exists ${COUNTER} (
      key text primary key,
      window_start timestamptz not null,
      hits int not null
    )`);

  const apiKey = `bl_${randomBytes(32).toString('base64url')}`;
  await pool.query(`insert into ${ORGANIZATION} (id, active) values ('org', true) on conflict do nothing`);
  await pool.query(
    `insert into ${KEY} (id, organization_id, key_hash, can_read, can_write) values ($1, 'org', $2, true, true)`,
    [randomUUID(), hashOf(apiKey)],
  );
  /**
   * The CTE `k`: the key's organization, when the key is valid, its organization active and the
   * permission held; with `countRequests`, the request counted in its organization's minute in
   * the same statement (`k` then answers only once the count is in). CTEs at the statement's top
   * level: Postgres refuses a data-modifying WITH nested in another CTE.
   */
  const provenKey = (permission: 'read' | 'write', parameter: string) => {
    const proven = `
    select k.organization_id from ${KEY} k join ${ORGANIZATION} o on o.id = k.organization_id
    where k.key_hash = ${parameter} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
      and o.active and k.can_${permission}`;
    if (!options.countRequests) return `k as (${proven})`;
    return `proven as (${proven}), counted as (
      insert into ${COUNTER} (key, window_start, hits)
      select 'api-${permission}:' || organization_id, date_trunc('minute', statement_timestamp()), 1 from proven
      on conflict (key) do update set
        hits = case when ${COUNTER}.window_start < excluded.window_start then 1 else ${COUNTER}.hits + 1 end,
        window_start = greatest(${COUNTER}.window_start, excluded.window_start)
      returning hits),
    k as (select organization_id from proven, counted)`;
  };

  const app = Fastify({ logger: false });
  const log = new FloorRequestLog(pool);
  app.addHook('onSend', (request, _reply, payload, done) => {
    (request as Answered)[ANSWER] = payload;
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    log.add({
      organization_id: 'org',
      at: new Date(Date.now() - reply.elapsedTime).toISOString(),
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime),
      request: request.body,
      answer: (request as Answered)[ANSWER],
    });
    done();
  });
  app.post('/api/payments', async (request, reply) => {
    const body = request.body as {
      amount: { value: string; currency: string };
      toAccount: object;
      reference: string;
    };
    const id = randomUUID();
    const createdAt = new Date();
    const { rows } = await pool.query<{ created: number }>({
      name: 'baseline_create',
      text: `with ${provenKey('write', '$1')},
       p as (
         insert into ${TABLE} (id, organization_id, status, amount_value, amount_currency, to_account, reference, created_at)
         select $2, k.organization_id, 'AUTHORIZING', $3, $4, $5, $6, $7 from k returning id, created_at),
       h as (
         insert into ${HISTORY} (payment_id, seq, status, timestamp)
         select p.id, h.seq, h.status, p.created_at from p, (values (1, 'PENDING'), (2, 'AUTHORIZING')) as h(seq, status))
       select count(*)::int as created from p`,
      values: [
        hashOf(request.headers['x-api-key']),
        id,
        body.amount.value,
        body.amount.currency,
        body.toAccount,
        { reference: body.reference },
        createdAt,
      ],
    });
    if (rows[0]?.created !== 1) return reply.code(401).send(INVALID_KEY);
    return reply.code(201).send({ success: true, data: { paymentId: id, status: 'AUTHORIZING', createdAt } });
  });
  app.get('/api/payments/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const { rows } = await pool.query<{ payment: object | null }>({
      name: 'baseline_get',
      text: `with ${provenKey('read', '$1')}
       select (select row_to_json(x) from (select p.*,
           (select json_agg(h order by h.seq) from ${HISTORY} h where h.payment_id = p.id) as history) x) as payment
       from k left join ${TABLE} p on p.id = $2 and p.organization_id = k.organization_id`,
      values: [hashOf(request.headers['x-api-key']), id],
    });
    if (rows.length === 0) return reply.code(401).send(INVALID_KEY);
    if (!rows[0]?.payment)
      return reply.code(404).send({ success: false, error: { message: 'Payment not found' } });
    return { success: true, data: rows[0].payment };
  });
  return {
    app,
    apiKey,
    close: async () => {
      await app.close();
      await log.stop();
      await pool.end();
    },
  };
}

const ANSWER = Symbol('floor.answer');
type Answered = FastifyRequest & { [ANSWER]?: unknown };

interface FloorLogEntry {
  organization_id: string;
  at: string;
  method: string;
  route: string;
  status: number;
  duration_ms: number;
  request: unknown;
  answer: unknown;
}

/** The request log as the product must keep it, done the least way: masked, batched, one statement. */
class FloorRequestLog {
  #queue: FloorLogEntry[] = [];
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
    this.#timer = setInterval(() => void this.flush(), 1_000);
    this.#timer.unref();
  }

  add(entry: FloorLogEntry): void {
    this.#queue.push(entry);
    if (this.#queue.length === LOG_FLUSH_AT) void this.flush();
  }

  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      while (this.#queue.length > 0) {
        const rows = this.#queue.splice(0, LOG_BATCH).map(({ request, answer, ...entry }) => ({
          ...entry,
          request_body: maskedBody(request),
          response_body: maskedBody(answer),
        }));
        await this.#pool
          .query({
            name: 'baseline_request_log',
            text: `insert into ${LOG} (organization_id, at, method, route, status, duration_ms, request_body, response_body)
              select * from json_to_recordset($1::json) as e(organization_id text, at timestamptz, method text,
                route text, status int, duration_ms int, request_body text, response_body text)`,
            values: [JSON.stringify(rows)],
          })
          .catch(() => {});
      }
    });
    return this.#flushing;
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}

const INVALID_KEY = { success: false, error: { message: 'Invalid API key' } };

const hashOf = (key: string | string[] | undefined) =>
  createHash('sha256')
    .update(typeof key === 'string' ? key : '')
    .digest('hex');
