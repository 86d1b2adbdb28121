import { AppError, MOCK_PROVIDER, randomId } from '@pis/shared';
import { generateApiKey } from '../auth/api-key-secret.ts';
import type { Clock } from '../clock.ts';
import { ApiKey, Organization, OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

export { setAllowedReturnOrigins } from './return-origins.ts';

/**
 * Operator actions (the CLI, the first-start demo seed and the test factories all go through
 * these). Each one writes in its own flush; a failed check changes nothing.
 */

export interface Permissions {
  read: boolean;
  write: boolean;
}

const organizationNotFound = (id: string) => new AppError('NOT_FOUND', `Organization not found: ${id}`);

async function loadOrganization(em: EntityManager, organizationId: string) {
  const organization = await em.findOne(Organization, { id: organizationId });
  if (!organization) throw organizationNotFound(organizationId);
  return organization;
}

export async function createOrganization(em: EntityManager, name: string, clock: Clock) {
  const organization = em.create(Organization, {
    id: randomId('org'),
    name,
    active: true,
    createdAt: clock.now(),
  });
  await em.persist(organization).flush();
  return { organizationId: organization.id };
}

export async function setOrganizationActive(em: EntityManager, organizationId: string, active: boolean) {
  const organization = await loadOrganization(em, organizationId);
  organization.active = active;
  await em.flush();
  return { organizationId, active };
}

/** Idempotent. `mock` is implicit for every organization, so approving it stores nothing. */
export async function approveProvider(
  em: EntityManager,
  organizationId: string,
  provider: string,
  clock: Clock,
) {
  await loadOrganization(em, organizationId);
  if (provider !== MOCK_PROVIDER) {
    await em.upsert(
      OrganizationProvider,
      { organization: organizationId, provider, approvedAt: clock.now() },
      { onConflictFields: ['organization', 'provider'], onConflictAction: 'ignore' },
    );
  }
  return { organizationId, provider };
}

export async function createApiKey(
  em: EntityManager,
  input: { organizationId: string; permissions: Permissions; expiresAt?: Date | undefined },
  clock: Clock,
) {
  await loadOrganization(em, input.organizationId);
  const generated = generateApiKey();
  const apiKey = em.create(ApiKey, {
    id: randomId('key'),
    organization: input.organizationId,
    prefix: generated.prefix,
    keyHash: generated.keyHash,
    canRead: input.permissions.read,
    canWrite: input.permissions.write,
    expiresAt: input.expiresAt ?? null,
    revokedAt: null,
    createdAt: clock.now(),
  });
  await em.persist(apiKey).flush();
  return { apiKeyId: apiKey.id, apiKey: generated.apiKey };
}

/** Idempotent: revoking twice keeps the first revocation time. */
export async function revokeApiKey(em: EntityManager, apiKeyId: string, clock: Clock) {
  const apiKey = await em.findOne(ApiKey, { id: apiKeyId });
  if (!apiKey) throw new AppError('NOT_FOUND', `API key not found: ${apiKeyId}`);
  apiKey.revokedAt ??= clock.now();
  await em.flush();
  return { apiKeyId, revoked: true };
}
