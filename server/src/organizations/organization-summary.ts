import { type DashboardOrganization, MOCK_PROVIDER } from '@pis/shared';
import { Organization, OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/** An organization as its own users see it (dashboard session and overview); undefined if unknown. */
export async function organizationSummary(
  em: EntityManager,
  organizationId: string,
): Promise<DashboardOrganization | undefined> {
  const fork = em.fork();
  const [organization, approvals] = await Promise.all([
    fork.findOne(Organization, { id: organizationId }),
    fork.find(OrganizationProvider, { organization: organizationId }, { orderBy: { provider: 'asc' } }),
  ]);
  if (!organization) return undefined;
  return {
    id: organization.id,
    name: organization.name,
    active: organization.active,
    approvedProviders: [MOCK_PROVIDER, ...approvals.map((approval) => approval.provider)],
  };
}
