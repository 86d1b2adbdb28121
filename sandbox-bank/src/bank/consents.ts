import type pg from 'pg';
import { newId } from './ids.ts';

export type ConsentStatus = 'AWAU' | 'AUTH' | 'COND' | 'RJCT';

export interface Consent {
  id: string;
  clientId: string;
  status: ConsentStatus;
  createdAt: Date;
  statusUpdatedAt: Date;
  /** The request's `Data` as sent (Initiation, Authorisation, SCASupportData, ReadRefundAccount). */
  data: Record<string, unknown>;
  risk: Record<string, unknown>;
  debtorAccountId: string | null;
  grantId: string | null;
}

interface ConsentRow {
  id: string;
  client_id: string;
  status: ConsentStatus;
  created_at: Date;
  status_updated_at: Date;
  data: Record<string, unknown>;
  risk: Record<string, unknown>;
  debtor_account_id: string | null;
  grant_id: string | null;
}

const toConsent = (row: ConsentRow): Consent => ({
  id: row.id,
  clientId: row.client_id,
  status: row.status,
  createdAt: row.created_at,
  statusUpdatedAt: row.status_updated_at,
  data: row.data,
  risk: row.risk,
  debtorAccountId: row.debtor_account_id,
  grantId: row.grant_id,
});

export async function insertConsent(
  db: pg.PoolClient,
  clientId: string,
  data: Record<string, unknown>,
  risk: Record<string, unknown>,
): Promise<Consent> {
  const { rows } = await db.query<ConsentRow>(
    `insert into consents (id, client_id, status, created_at, status_updated_at, data, risk)
     values ($1, $2, 'AWAU', now(), now(), $3, $4) returning *`,
    [newId('pdc'), clientId, data, risk],
  );
  return toConsent(rows[0]!);
}

export async function findConsent(
  db: pg.Pool | pg.PoolClient,
  id: string,
  lock = false,
): Promise<Consent | undefined> {
  const { rows } = await db.query<ConsentRow>(
    `select * from consents where id = $1${lock ? ' for update' : ''}`,
    [id],
  );
  return rows[0] ? toConsent(rows[0]) : undefined;
}

export async function consentIdForGrant(pool: pg.Pool, grantId: string): Promise<string | undefined> {
  const { rows } = await pool.query<{ id: string }>('select id from consents where grant_id = $1', [grantId]);
  return rows[0]?.id;
}

/**
 * The named transitions (AWAU -> AUTH | RJCT, AUTH -> COND): each applies only from its one
 * allowed status, so a second click or a replay changes nothing and says so (false).
 */
export async function authoriseConsent(
  pool: pg.Pool,
  id: string,
  debtorAccountId: string,
  grantId: string,
): Promise<boolean> {
  const { rowCount } = await pool.query(
    `update consents set status = 'AUTH', status_updated_at = now(), debtor_account_id = $2, grant_id = $3
     where id = $1 and status = 'AWAU'`,
    [id, debtorAccountId, grantId],
  );
  return rowCount === 1;
}

export async function rejectConsent(pool: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query(
    `update consents set status = 'RJCT', status_updated_at = now() where id = $1 and status = 'AWAU'`,
    [id],
  );
  return rowCount === 1;
}

export async function consumeConsent(db: pg.PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `update consents set status = 'COND', status_updated_at = now() where id = $1 and status = 'AUTH'`,
    [id],
  );
  return rowCount === 1;
}
