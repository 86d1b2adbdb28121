import { AppError, MESSAGES, MOCK_PROVIDER } from '@pis/shared';
import type { Clock } from '../clock.ts';
import { ApiKey, OrganizationProvider } from '../db/entities/index.ts';
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

  const key = await em.findOne(ApiKey, { prefix }, { populate: ['organization'] });
  // The lookup is by the non-secret prefix; the secret part is compared in constant time.
  if (!key || !hashesEqual(hashApiKey(presented), key.keyHash)) throw invalid();
  const now = clock.now();
  if (key.revokedAt || (key.expiresAt && key.expiresAt.getTime() <= now.getTime())) throw invalid();
  if (!key.organization.active) throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);

  const approvals = await em.find(
    OrganizationProvider,
    { organization: key.organization.id },
    { orderBy: { provider: 'asc' } },
  );
  return {
    organizationId: key.organization.id,
    apiKeyId: key.id,
    approvedProviders: [MOCK_PROVIDER, ...approvals.map((approval) => approval.provider)],
    permissions: { read: key.canRead, write: key.canWrite },
  };
}

export function requirePermission(caller: Caller, permission: Permission): void {
  if (!caller.permissions[permission]) throw new AppError('FORBIDDEN', MESSAGES.lacksPermission(permission));
}
