import { AppError, MESSAGES, MOCK_PROVIDER } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import { hashApiKey, hashesEqual, prefixOf } from './api-key-secret.ts';

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
 * The spec's Authentication table: no key, unknown, revoked or expired -> 401 `Invalid API key`
 * (one message for all, so a caller learns nothing about which keys exist); inactive
 * organization -> 403. Permission is checked by the procedure (see trpc/procedures.ts).
 */
export async function authenticateApiKey(
  em: EntityManager,
  presented: string | string[] | undefined,
  clock: Clock,
): Promise<Caller> {
  const invalid = () => new AppError('UNAUTHORIZED', MESSAGES.invalidApiKey);
  if (typeof presented !== 'string') throw invalid();
  const prefix = prefixOf(presented);
  if (!prefix) throw invalid();

  const [key] = await em.execute<KeyRow[]>(KEY_WITH_ORGANIZATION, [prefix]);
  // The lookup is by the non-secret prefix; the secret part is compared in constant time.
  if (!key || !hashesEqual(hashApiKey(presented), key.key_hash)) throw invalid();
  const now = clock.now();
  if (key.revoked_at || (key.expires_at && new Date(key.expires_at).getTime() <= now.getTime())) {
    throw invalid();
  }
  if (!key.active) throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);
  return {
    organizationId: key.organization_id,
    apiKeyId: key.id,
    approvedProviders: [MOCK_PROVIDER, ...key.providers],
    permissions: { read: key.can_read, write: key.can_write },
  };
}

/**
 * Every request reads its key, organization and approvals afresh (one query, no cache), so a
 * key revoked or an organization deactivated by the operator CLI is refused on the next request.
 */
const KEY_WITH_ORGANIZATION = `
  select k.id, k.key_hash, k.can_read, k.can_write, k.expires_at, k.revoked_at,
    k.organization_id, o.active,
    array(
      select op.provider::text from organization_provider op
      where op.organization_id = k.organization_id order by op.provider
    ) as providers
  from api_key k join organization o on o.id = k.organization_id
  where k.prefix = ?`;

interface KeyRow {
  id: string;
  key_hash: string;
  can_read: boolean;
  can_write: boolean;
  /** Timestamps as Postgres text (the ORM's driver leaves them unparsed). */
  expires_at: string | null;
  revoked_at: string | null;
  organization_id: string;
  active: boolean;
  providers: string[];
}

export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.permissions[permission]) throw new AppError('FORBIDDEN', MESSAGES.lacksPermission(permission));
}
