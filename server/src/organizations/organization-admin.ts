import { AppError, MOCK_PROVIDER, randomId } from '@pis/shared';
import type { Clock } from '../clock.ts';
import { Organization, OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/**
 * Operator actions on organizations (the CLI, sign-up, the first-start demo seed and the test
 * factories all go through these). Each one writes in its own flush; a failed check changes
 * nothing. API keys: auth/api-keys.ts; dashboard users: accounts/users.ts.
 */

export const organizationNotFound = (id: string) =>
  new AppError('NOT_FOUND', `Organization not found: ${id}`);

export async function loadOrganization(em: EntityManager, organizationId: string) {
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
