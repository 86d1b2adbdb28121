import type pg from 'pg';
import { newId } from './ids.ts';

/** The ISO statuses this bank moves a payment through. */
export type PaymentStatus = 'RCVD' | 'ACSP' | 'ACSC' | 'RJCT';

export interface StatusStep {
  status: PaymentStatus;
  at: string;
  reason?: string;
}

export interface Payment {
  id: string;
  consentId: string;
  clientId: string;
  status: PaymentStatus;
  statusReason: string | null;
  createdAt: Date;
  statusUpdatedAt: Date;
  history: StatusStep[];
  /** The request's Initiation (same as the consent's). */
  data: Record<string, unknown>;
}

interface PaymentRow {
  id: string;
  consent_id: string;
  client_id: string;
  status: PaymentStatus;
  status_reason: string | null;
  created_at: Date;
  status_updated_at: Date;
  history: StatusStep[];
  data: Record<string, unknown>;
}

const toPayment = (row: PaymentRow): Payment => ({
  id: row.id,
  consentId: row.consent_id,
  clientId: row.client_id,
  status: row.status,
  statusReason: row.status_reason,
  createdAt: row.created_at,
  statusUpdatedAt: row.status_updated_at,
  history: row.history,
  data: row.data,
});

export async function insertPayment(
  db: pg.PoolClient,
  consentId: string,
  clientId: string,
  data: Record<string, unknown>,
  firstStepMs: number,
): Promise<Payment> {
  const { rows } = await db.query<PaymentRow>(
    `insert into payments (id, consent_id, client_id, status, created_at, status_updated_at, next_step_at, history, data)
     values ($1, $2, $3, 'RCVD', now(), now(), now() + make_interval(secs => $4::float8 / 1000),
       jsonb_build_array(jsonb_build_object('status', 'RCVD', 'at', now())), $5) returning *`,
    [newId('dp'), consentId, clientId, firstStepMs, data],
  );
  return toPayment(rows[0]!);
}

export async function findPayment(db: pg.Pool | pg.PoolClient, id: string): Promise<Payment | undefined> {
  const { rows } = await db.query<PaymentRow>('select * from payments where id = $1', [id]);
  return rows[0] ? toPayment(rows[0]) : undefined;
}

/**
 * One step of a payment, the only way its status changes: forward along RCVD -> ACSP -> ACSC,
 * or to RJCT from a status that is not final. `from` guards against a concurrent step.
 */
export async function stepPayment(
  db: pg.PoolClient,
  id: string,
  from: PaymentStatus,
  to: PaymentStatus,
  nextStepMs: number | null,
  reason?: string,
): Promise<boolean> {
  const allowed: Record<PaymentStatus, PaymentStatus[]> = {
    RCVD: ['ACSP', 'RJCT'],
    ACSP: ['ACSC', 'RJCT'],
    ACSC: [],
    RJCT: [],
  };
  if (!allowed[from].includes(to)) throw new Error(`a payment never moves from ${from} to ${to}`);
  const { rowCount } = await db.query(
    `update payments set status = $3, status_reason = $4, status_updated_at = now(),
       next_step_at = case when $5::float8 is null then null else now() + make_interval(secs => $5::float8 / 1000) end,
       history = history || jsonb_build_array(jsonb_strip_nulls(jsonb_build_object('status', $3::text, 'at', now(), 'reason', $4::text)))
     where id = $1 and status = $2`,
    [id, from, to, reason ?? null, nextStepMs],
  );
  return rowCount === 1;
}
