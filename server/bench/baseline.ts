import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';

/**
 * The floor: bare Fastify + pg doing the least the spec demands of a payment API per request,
 * each in ONE statement on the same pool size as the service, logging off (issue 22):
 * - every request proves its API key: the SHA-256 of the `x-api-key` header looked up by a
 *   unique index, the key neither revoked nor expired, its organization active, and the
 *   permission the request needs (write for create, read for get); else 401;
 * - create: the payment row and its two history rows (PENDING, AUTHORIZING: a create's answer
 *   and its later GET must show them), in the key's organization, in the same statement;
 * - get: the payment by id within the key's organization, with its history, as one JSON value
 *   (404 when the organization has no such payment).
 * No validation, ORM, idempotency, jobs, secondary indexes or rate limits: the service's
 * figures are read as a fraction of these (see docs/decisions/005-hot-path-performance.md).
 */

const TABLE = 'baseline_payment';
const HISTORY = 'baseline_payment_history';
const KEY = 'baseline_api_key';
const ORGANIZATION = 'baseline_organization';

export interface Baseline {
  app: FastifyInstance;
  /** The one key the floor's organization has (read and write). */
  apiKey: string;
  close(): Promise<void>;
}

export async function startBaseline(databaseUrl: string, poolMax: number): Promise<Baseline> {
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
    )`);

  const apiKey = `bl_${randomBytes(32).toString('base64url')}`;
  await pool.query(`insert into ${ORGANIZATION} (id, active) values ('org', true) on conflict do nothing`);
  await pool.query(
    `insert into ${KEY} (id, organization_id, key_hash, can_read, can_write) values ($1, 'org', $2, true, true)`,
    [randomUUID(), hashOf(apiKey)],
  );
  /** The key's organization, when the key is valid, its organization active and the permission held. */
  const provenKey = (permission: 'read' | 'write', parameter: string) => `
    select k.organization_id from ${KEY} k join ${ORGANIZATION} o on o.id = k.organization_id
    where k.key_hash = ${parameter} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
      and o.active and k.can_${permission}`;

  const app = Fastify({ logger: false });
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
      text: `with k as (${provenKey('write', '$1')}),
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
      text: `with k as (${provenKey('read', '$1')})
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
      await pool.end();
    },
  };
}

const INVALID_KEY = { success: false, error: { message: 'Invalid API key' } };

const hashOf = (key: string | string[] | undefined) =>
  createHash('sha256')
    .update(typeof key === 'string' ? key : '')
    .digest('hex');
