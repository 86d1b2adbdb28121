import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { newId } from '../bank/ids.ts';
import type { PaymentBody } from './schemas.ts';

/**
 * Sandbox Bank EU's payments and their one SCA. Statuses: RCVD (created, awaiting the customer)
 * -> ACTC (the customer approved: SCA finalised, account chosen) -> ACSP (debited) -> ACSC
 * (settled); RJCT when the customer refuses (SCA failed) or the account cannot cover the amount
 * (funds_available false); CANC when the TPP deletes it before authorisation. Every change is a
 * named transition guarded by the status it leaves, so a second click or a race changes nothing.
 */
export type Xs2aStatus = 'RCVD' | 'ACTC' | 'ACSP' | 'ACSC' | 'RJCT' | 'CANC';
export type ScaStatus = 'received' | 'psuAuthenticated' | 'finalised' | 'failed';
export const PRODUCTS = ['sepa-credit-transfers', 'instant-sepa-credit-transfers'] as const;
export type Product = (typeof PRODUCTS)[number];

export interface Xs2aPayment {
  id: string;
  tppId: string;
  product: Product;
  status: Xs2aStatus;
  createdAt: Date;
  history: { status: Xs2aStatus; at: string }[];
  data: PaymentBody;
  debtorAccountId: string | null;
  fundsAvailable: boolean | null;
  authorisationId: string;
  scaStatus: ScaStatus;
  scaSessionHash: string | null;
  redirectUri: string;
  nokRedirectUri: string | null;
}

interface Row {
  id: string;
  tpp_id: string;
  product: Product;
  status: Xs2aStatus;
  created_at: Date;
  history: { status: Xs2aStatus; at: string }[];
  data: PaymentBody;
  debtor_account_id: string | null;
  funds_available: boolean | null;
  authorisation_id: string;
  sca_status: ScaStatus;
  sca_session_hash: string | null;
  redirect_uri: string;
  nok_redirect_uri: string | null;
}

const toPayment = (row: Row): Xs2aPayment => ({
  id: row.id,
  tppId: row.tpp_id,
  product: row.product,
  status: row.status,
  createdAt: row.created_at,
  history: row.history,
  data: row.data,
  debtorAccountId: row.debtor_account_id,
  fundsAvailable: row.funds_available,
  authorisationId: row.authorisation_id,
  scaStatus: row.sca_status,
  scaSessionHash: row.sca_session_hash,
  redirectUri: row.redirect_uri,
  nokRedirectUri: row.nok_redirect_uri,
});

/** Ids: the shape of the UK face's (`ID_SHAPE`), so a path id is checked the same way. */
export async function insertXs2aPayment(
  db: pg.Pool,
  input: {
    tppId: string;
    product: Product;
    data: PaymentBody;
    debtorAccountId: string | null;
    redirectUri: string;
    nokRedirectUri: string | null;
    psuIpAddress: string;
  },
): Promise<Xs2aPayment> {
  const { rows } = await db.query<Row>(
    `insert into xs2a_payments (id, tpp_id, product, status, created_at, status_updated_at, history, data,
       debtor_account_id, authorisation_id, sca_status, redirect_uri, nok_redirect_uri, psu_ip_address)
     values ($1, $2, $3, 'RCVD', now(), now(), jsonb_build_array(jsonb_build_object('status', 'RCVD', 'at', now())),
       $4, $5, $6, 'received', $7, $8, $9) returning *`,
    [
      newId('sct'),
      input.tppId,
      input.product,
      input.data,
      input.debtorAccountId,
      newId('sca'),
      input.redirectUri,
      input.nokRedirectUri,
      input.psuIpAddress,
    ],
  );
  return toPayment(rows[0]!);
}

export async function findXs2aPayment(
  db: pg.Pool | pg.PoolClient,
  id: string,
): Promise<Xs2aPayment | undefined> {
  const { rows } = await db.query<Row>('select * from xs2a_payments where id = $1', [id]);
  return rows[0] ? toPayment(rows[0]) : undefined;
}

export async function findByAuthorisation(
  db: pg.Pool,
  authorisationId: string,
): Promise<Xs2aPayment | undefined> {
  const { rows } = await db.query<Row>('select * from xs2a_payments where authorisation_id = $1', [
    authorisationId,
  ]);
  return rows[0] ? toPayment(rows[0]) : undefined;
}

const moveSql = (set: string) =>
  `update xs2a_payments set ${set}, status_updated_at = now(),
     history = history || jsonb_build_array(jsonb_build_object('status', $2::text, 'at', now()))`;

/** The customer signed in: returns the session secret for their browser (only its hash is kept). */
export async function authenticatePsu(db: pg.Pool, id: string): Promise<string | undefined> {
  const secret = randomBytes(24).toString('base64url');
  const { rowCount } = await db.query(
    `update xs2a_payments set sca_status = 'psuAuthenticated', sca_session_hash = $2
     where id = $1 and status = 'RCVD' and sca_status in ('received', 'psuAuthenticated')`,
    [id, sessionHash(secret)],
  );
  return rowCount === 1 ? secret : undefined;
}

export const sessionHash = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/** RCVD -> ACTC: SCA finalised, the account chosen; the engine debits it after `stepMs`. */
export async function approve(db: pg.Pool, id: string, accountId: string, stepMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `${moveSql(`status = $2, sca_status = 'finalised', debtor_account_id = $3,
       next_step_at = now() + make_interval(secs => $4::float8 / 1000)`)}
     where id = $1 and status = 'RCVD' and sca_status = 'psuAuthenticated'`,
    [id, 'ACTC', accountId, stepMs],
  );
  return rowCount === 1;
}

/** RCVD -> RJCT: the customer refused (SCA failed). */
export async function refuse(db: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `${moveSql(`status = $2, sca_status = 'failed', next_step_at = null`)}
     where id = $1 and status = 'RCVD' and sca_status = 'psuAuthenticated'`,
    [id, 'RJCT'],
  );
  return rowCount === 1;
}

/** RCVD -> CANC: the TPP deleted it before the customer authorised it. */
export async function cancel(db: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `${moveSql(`status = $2, sca_status = 'failed', next_step_at = null`)}
     where id = $1 and status = 'RCVD'`,
    [id, 'CANC'],
  );
  return rowCount === 1;
}

/** The engine's steps: ACTC -> ACSP (debited) | RJCT (no funds), ACSP -> ACSC. */
export async function stepDue(db: pg.PoolClient, stepMs: number): Promise<boolean> {
  const { rows } = await db.query<{
    id: string;
    status: Xs2aStatus;
    amount: string;
    debtor_account_id: string;
  }>(
    `select id, status, data #>> '{instructedAmount,amount}' as amount, debtor_account_id from xs2a_payments
     where next_step_at <= now() order by next_step_at limit 1 for update skip locked`,
  );
  const payment = rows[0];
  if (!payment) return false;
  if (payment.status === 'ACTC') {
    const debited = await db.query(
      'update accounts set balance = balance - $2::numeric where id = $1 and balance >= $2::numeric',
      [payment.debtor_account_id, payment.amount],
    );
    if (debited.rowCount === 1)
      await db.query(
        `${moveSql(`status = $2, funds_available = true, next_step_at = now() + make_interval(secs => $3::float8 / 1000)`)}
         where id = $1`,
        [payment.id, 'ACSP', stepMs],
      );
    else
      await db.query(
        `${moveSql('status = $2, funds_available = false, next_step_at = null')} where id = $1`,
        [payment.id, 'RJCT'],
      );
  } else if (payment.status === 'ACSP') {
    await db.query(`${moveSql('status = $2, next_step_at = null')} where id = $1`, [payment.id, 'ACSC']);
  } else {
    await db.query('update xs2a_payments set next_step_at = null where id = $1', [payment.id]);
  }
  return true;
}
