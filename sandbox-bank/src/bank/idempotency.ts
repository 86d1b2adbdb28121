import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * `x-idempotency-key`, per client and kind of resource, kept 24 hours: the same key with the
 * same body finds the resource made the first time; another body under the key is refused.
 * The body is compared after canonical JSON (sorted keys), so whitespace does not count.
 */
export const IDEMPOTENCY_HOURS = 24;

export type Remembered = { resourceId: string; sameBody: boolean } | undefined;

export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('base64url');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Under a transaction-level advisory lock on the key, so two concurrent first calls make one resource. */
export async function recall(
  db: pg.PoolClient,
  clientId: string,
  kind: string,
  key: string,
  hash: string,
): Promise<Remembered> {
  await db.query('select pg_advisory_xact_lock(hashtext($1))', [`${clientId}/${kind}/${key}`]);
  await db.query(
    `delete from idempotency_keys where client_id = $1 and kind = $2 and key = $3
       and created_at < now() - make_interval(hours => $4)`,
    [clientId, kind, key, IDEMPOTENCY_HOURS],
  );
  const { rows } = await db.query<{ resource_id: string; body_hash: string }>(
    'select resource_id, body_hash from idempotency_keys where client_id = $1 and kind = $2 and key = $3',
    [clientId, kind, key],
  );
  const row = rows[0];
  return row ? { resourceId: row.resource_id, sameBody: row.body_hash === hash } : undefined;
}

export async function remember(
  db: pg.PoolClient,
  clientId: string,
  kind: string,
  key: string,
  hash: string,
  resourceId: string,
): Promise<void> {
  await db.query(
    'insert into idempotency_keys (client_id, kind, key, body_hash, resource_id) values ($1, $2, $3, $4, $5)',
    [clientId, kind, key, hash, resourceId],
  );
}
