import { AppError } from '@pis/shared';
import { z } from 'zod';
import type { EntityManager } from '../db/orm.ts';

/**
 * Reading the request log and the audit log, always inside one organization (the caller's):
 * another organization's rows are never found, not even by id. Pages go newest first, in time
 * order (`at`, then the entry's id for entries of the same instant: the numbers, never their
 * text, where "9" sorts after "15"), with an entry's id as the cursor (`before`): the next page
 * starts strictly after that entry in the same order, so pages neither skip nor repeat. Both
 * walk the (organization_id, at desc, id desc) index, so a page costs the same however old
 * the organization.
 */

/** Entries older than the cursor's entry, in the list's order; none when the cursor is not the organization's. */
const olderThan = (table: 'request_log' | 'audit_log') =>
  `(${table}.at, ${table}.id) < (select c.at, c.id from ${table} c where c.organization_id = ? and c.id = ?)`;
const newestFirst = (table: 'request_log' | 'audit_log') => `order by ${table}.at desc, ${table}.id desc`;

const cursor = z
  .string()
  .regex(/^[1-9][0-9]{0,18}$/, 'must be an entry id')
  .optional();

export const RequestLogQuery = z.strictObject({
  /** A class (`2xx`, `4xx`, `5xx`) or one status code. */
  status: z.union([z.enum(['2xx', '3xx', '4xx', '5xx']), z.int().min(100).max(599)]).optional(),
  /** A route template as listed (`/api/payments/{paymentId}`). */
  route: z.string().min(1).max(200).optional(),
  keyPrefix: z.string().min(1).max(20).optional(),
  requestId: z.string().min(1).max(128).optional(),
  before: cursor,
  limit: z.int().min(1).max(100).default(50),
});
export type RequestLogQuery = z.input<typeof RequestLogQuery>;

export const RequestLogEntry = z.object({
  id: z.string(),
  at: z.string(),
  method: z.string(),
  route: z.string(),
  status: z.int(),
  errorCode: z.string().nullable(),
  durationMs: z.int(),
  keyPrefix: z.string().nullable(),
  requestId: z.string(),
  idempotencyKey: z.string().nullable(),
});
export const RequestLogPage = z.object({
  entries: z.array(RequestLogEntry),
  nextBefore: z.string().nullable(),
});
export const RequestLogDetail = RequestLogEntry.extend({
  requestBody: z.string().nullable(),
  responseBody: z.string().nullable(),
});

type Row = {
  id: string;
  at: Date | string;
  method: string;
  route: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  key_prefix: string | null;
  request_id: string;
  idempotency_key: string | null;
  request_body?: string | null;
  response_body?: string | null;
};

const entryOf = (row: Row) => ({
  id: String(row.id),
  at: new Date(row.at).toISOString(),
  method: row.method,
  route: row.route,
  status: Number(row.status),
  errorCode: row.error_code,
  durationMs: Number(row.duration_ms),
  keyPrefix: row.key_prefix,
  requestId: row.request_id,
  idempotencyKey: row.idempotency_key,
});

const COLUMNS =
  'id::text as id, at, method, route, status, error_code, duration_ms, key_prefix, request_id, idempotency_key';

export async function searchRequestLog(
  em: EntityManager,
  organizationId: string,
  input: RequestLogQuery,
): Promise<z.infer<typeof RequestLogPage>> {
  const query = RequestLogQuery.parse(input);
  const where = ['organization_id = ?'];
  const values: unknown[] = [organizationId];
  if (typeof query.status === 'number') {
    where.push('status = ?');
    values.push(query.status);
  } else if (query.status) {
    const low = Number(query.status[0]) * 100;
    where.push('status between ? and ?');
    values.push(low, low + 99);
  }
  for (const [column, value] of [
    ['route', query.route],
    ['key_prefix', query.keyPrefix],
    ['request_id', query.requestId],
  ] as const) {
    if (value === undefined) continue;
    where.push(`${column} = ?`);
    values.push(value);
  }
  if (query.before) {
    where.push(olderThan('request_log'));
    values.push(organizationId, query.before);
  }
  const rows = await em.execute<Row[]>(
    `select ${COLUMNS} from request_log where ${where.join(' and ')} ${newestFirst('request_log')} limit ?`,
    [...values, query.limit + 1],
  );
  const entries = rows.slice(0, query.limit).map(entryOf);
  return { entries, nextBefore: rows.length > query.limit ? (entries.at(-1)?.id ?? null) : null };
}

export async function requestLogDetail(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<z.infer<typeof RequestLogDetail>> {
  const [row] = /^[1-9][0-9]{0,18}$/.test(id)
    ? await em.execute<Row[]>(
        `select ${COLUMNS}, request_body, response_body from request_log where organization_id = ? and id = ?`,
        [organizationId, id],
      )
    : [];
  if (!row) throw new AppError('NOT_FOUND', 'Request log entry not found');
  return { ...entryOf(row), requestBody: row.request_body ?? null, responseBody: row.response_body ?? null };
}

export const AuditLogQuery = z.strictObject({ before: cursor, limit: z.int().min(1).max(100).default(50) });
export const AuditLogEntry = z.object({
  id: z.string(),
  at: z.string(),
  actorType: z.string(),
  actor: z.string(),
  action: z.string(),
  target: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
export const AuditLogPage = z.object({ entries: z.array(AuditLogEntry), nextBefore: z.string().nullable() });

export async function listAuditLog(
  em: EntityManager,
  organizationId: string,
  input: z.input<typeof AuditLogQuery>,
): Promise<z.infer<typeof AuditLogPage>> {
  const query = AuditLogQuery.parse(input);
  const rows = await em.execute<
    {
      id: string;
      at: Date | string;
      actor_type: string;
      actor: string;
      action: string;
      target: string | null;
      details: Record<string, unknown> | null;
    }[]
  >(
    `select id::text as id, at, actor_type, actor, action, target, details from audit_log
      where organization_id = ? ${query.before ? `and ${olderThan('audit_log')}` : ''}
      ${newestFirst('audit_log')} limit ?`,
    [organizationId, ...(query.before ? [organizationId, query.before] : []), query.limit + 1],
  );
  const entries = rows.slice(0, query.limit).map((row) => ({
    id: String(row.id),
    at: new Date(row.at).toISOString(),
    actorType: row.actor_type,
    actor: row.actor,
    action: row.action,
    target: row.target,
    details: row.details,
  }));
  return { entries, nextBefore: rows.length > query.limit ? (entries.at(-1)?.id ?? null) : null };
}
