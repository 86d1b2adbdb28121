import { AppError, MESSAGES, MOCK_PROVIDER } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import { preparedQuery } from '../db/prepared-query.ts';
import type { Logger } from '../logger.ts';
import { hashApiKey, prefixOf } from './api-key-secret.ts';
import { recordKeyUse } from './key-use.ts';

export type Permission = 'read' | 'write';

/** Who is calling, as every authenticated procedure sees it. */
export interface Caller {
  organizationId: string;
  apiKeyId: string;
  /** Always contains `mock`, then the operator-approved providers. */
  approvedProviders: string[];
  permissions: Record<Permission, boolean>;
}

/**
 * A read that rides on the key lookup's round trip (one query instead of two on the hottest
 * read, GET /payments/{id}): a scalar subquery that scopes itself with the key's
 * `k.organization_id`. The lookup is by the key's hash, so the subquery runs only for a key
 * whose whole secret matched: a wrong secret reads no row of the organization (see the
 * auth tests). Its value is handed over only once the key has passed every check.
 */
export interface KeyPreload {
  /** Names the prepared statement; one per distinct `sql`. */
  name: string;
  sql: string;
  values: unknown[];
}

/**
 * The spec's Authentication table: no key, unknown, revoked or expired -> 401 `Invalid API key`
 * (one message for all, so a caller learns nothing about which keys exist); inactive
 * organization -> 403. Permission is checked by the procedure (see trpc/procedures.ts).
 * `preloaded` is the preload's value (null when it found nothing), undefined without one.
 */
export async function authenticateApiKey(
  em: EntityManager,
  presented: string | string[] | undefined,
  clock: Clock,
  preload?: KeyPreload,
  logger?: Logger,
): Promise<{ caller: Caller; preloaded: unknown }> {
  const invalid = () => new AppError('UNAUTHORIZED', MESSAGES.invalidApiKey);
  if (typeof presented !== 'string') throw invalid();
  if (!prefixOf(presented)) throw invalid();

  // Found by the SHA-256 of the whole key (unique index): equality on a hash of 286 random bits
  // leaks nothing usable through timing, and no other row is touched for a wrong key.
  const [key] = await preparedQuery<KeyRow>(
    em,
    preload ? { name: `api_key_by_hash_with_${preload.name}`, sql: keyLookupSql(preload.sql) } : KEY_LOOKUP,
    preload ? [...preload.values, hashApiKey(presented)] : [hashApiKey(presented)],
  );
  if (!key) throw invalid();
  const now = clock.now();
  if (key.revoked_at || (key.expires_at && new Date(key.expires_at).getTime() <= now.getTime())) {
    throw invalid();
  }
  if (!key.active) throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);
  recordKeyUse(em, key.id, now, logger);
  const caller: Caller = {
    organizationId: key.organization_id,
    apiKeyId: key.id,
    approvedProviders: [MOCK_PROVIDER, ...key.providers],
    permissions: { read: key.can_read, write: key.can_write },
  };
  return { caller, preloaded: preload ? key.preloaded : undefined };
}

/**
 * Every request reads its key, organization and approvals afresh (one query, no cache), so a
 * key revoked or an organization deactivated by the operator CLI is refused on the next request.
 */
const keyLookupSql = (preloadSql?: string) => `
  select k.id, k.can_read, k.can_write, k.expires_at, k.revoked_at,
    k.organization_id, o.active,
    array(
      select op.provider::text from organization_provider op
      where op.organization_id = k.organization_id order by op.provider
    ) as providers${preloadSql ? `, (${preloadSql}) as preloaded` : ''}
  from api_key k join organization o on o.id = k.organization_id
  where k.key_hash = ?`;

const KEY_LOOKUP = { name: 'api_key_by_hash_with_organization', sql: keyLookupSql() };

interface KeyRow {
  id: string;
  can_read: boolean;
  can_write: boolean;
  /** Timestamps as Postgres text (the ORM's driver leaves them unparsed). */
  expires_at: string | null;
  revoked_at: string | null;
  organization_id: string;
  active: boolean;
  providers: string[];
  preloaded?: unknown;
}

export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.permissions[permission]) throw new AppError('FORBIDDEN', MESSAGES.lacksPermission(permission));
}
