import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';

/**
 * The yardstick: bare Fastify + pg doing the least a payment API could do per request, one
 * INSERT of a payment-shaped row for create and one SELECT by id for get. No auth, validation,
 * ORM, history or jobs. The service's figures are read as a fraction of these.
 */

const TABLE = 'baseline_payment';

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
    await pool.query(
      `insert into ${TABLE} (id, organization_id, status, amount_value, amount_currency, to_account, reference, created_at)
       values ($1, $2, 'AUTHORIZING', $3, $4, $5, $6, $7)`,
      [
        id,
        'org',
        body.amount.value,
        body.amount.currency,
        body.toAccount,
        { reference: body.reference },
        createdAt,
      ],
    );
    return reply.code(201).send({ success: true, data: { paymentId: id, status: 'AUTHORIZING', createdAt } });
  });
  app.get('/api/payments/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const { rows } = await pool.query(`select * from ${TABLE} where id = $1`, [id]);
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
