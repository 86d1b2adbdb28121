import { AppError, MOCK_PROVIDER, randomId } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { RateLimitConfig } from '../config.ts';
import { Organization, OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { budgetOf, budgetSettingsOf } from '../rate-limits/organization-budgets.ts';

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

/** `reducedBudgets`: self-serve sign-up's (an operator's organization has the defaults). */
export async function createOrganization(
  em: EntityManager,
  name: string,
  clock: Clock,
  { reducedBudgets = false }: { reducedBudgets?: boolean } = {},
) {
  const organization = em.create(Organization, {
    id: randomId('org'),
    name,
    active: true,
    createdAt: clock.now(),
    reducedBudgets,
  });
  await em.persist(organization).flush();
  return { organizationId: organization.id };
}

/**
 * `org:set-limits`: an operator's budgets for an organization. Any call lifts the reduced budgets
 * of a self-serve sign-up; a number sets that budget, `null` returns it to the default, and a
 * budget not named keeps its setting. Answers the limits now in force.
 */
export async function setOrganizationLimits(
  em: EntityManager,
  organizationId: string,
  limits: { apiReads?: number | null; apiWrites?: number | null; waits?: number | null },
  defaults: RateLimitConfig,
) {
  const organization = await loadOrganization(em, organizationId);
  organization.reducedBudgets = false;
  if (limits.apiReads !== undefined) organization.budgetApiReads = limits.apiReads;
  if (limits.apiWrites !== undefined) organization.budgetApiWrites = limits.apiWrites;
  if (limits.waits !== undefined) organization.budgetWaits = limits.waits;
  await em.flush();
  const settings = budgetSettingsOf(organization);
  return {
    organizationId,
    apiReads: budgetOf(defaults, settings, 'api-read'),
    apiWrites: budgetOf(defaults, settings, 'api-write'),
    waits: budgetOf(defaults, settings, 'waits'),
  };
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
