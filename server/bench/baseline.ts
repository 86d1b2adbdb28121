import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';

/**
 * The yardstick: bare Fastify + pg doing the least the spec demands of a payment API per request,
 * each in ONE statement on the same pool size as the service, logging off:
 * - create: the payment row and its two history rows (PENDING, AUTHORIZING: a create's answer
 *   and its later GET must show them) in one statement, so one implicit transaction;
 * - get: the payment by id with its history, as one row.
 * No authentication, validation, ORM, idempotency, jobs, secondary indexes or rate limits: the
 * service's figures are read as a fraction of these (issue 9; see
 * docs/decisions/hot-path-performance.md).
 */

const TABLE = 'baseline_payment';
const HISTORY = 'baseline_payment_history';

export interface Baseline {
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startBaseline(databaseUrl: string, poolMax: number): Promise<Baseline> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolMax });
  pool.on('error', () => {});
  await pool.query(`
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

  const app = Fastify({ logger: false });
  app.post('/api/payments', async (request, reply) => {
    const body = request.body as {
      amount: { value: string; currency: string };
      toAccount: object;
      reference: string;
    };
    const id = randomUUID();
    const createdAt = new Date();
    await pool.query({
      name: 'baseline_create',
      text: `with p as (
         insert into ${TABLE} (id, organization_id, status, amount_value, amount_currency, to_account, reference, created_at)
         values ($1, $2, 'AUTHORIZING', $3, $4, $5, $6, $7) returning id, created_at)
       insert into ${HISTORY} (payment_id, seq, status, timestamp)
       select p.id, h.seq, h.status, p.created_at from p, (values (1, 'PENDING'), (2, 'AUTHORIZING')) as h(seq, status)`,
      values: [
        id,
        'org',
        body.amount.value,
        body.amount.currency,
        body.toAccount,
        { reference: body.reference },
        createdAt,
      ],
    });
    return reply.code(201).send({ success: true, data: { paymentId: id, status: 'AUTHORIZING', createdAt } });
  });
  app.get('/api/payments/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const { rows } = await pool.query({
      name: 'baseline_get',
      text: `select p.*, (select json_agg(h order by h.seq) from ${HISTORY} h where h.payment_id = p.id) as history
       from ${TABLE} p where p.id = $1`,
      values: [id],
    });
    if (rows.length === 0)
      return reply.code(404).send({ success: false, error: { message: 'Payment not found' } });
    return { success: true, data: rows[0] };
  });
  return {
    app,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}
