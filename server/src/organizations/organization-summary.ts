import { type DashboardOrganization, MOCK_PROVIDER } from '@pis/shared';
import { Organization, OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { type BudgetSettings, budgetSettingsOf } from '../rate-limits/organization-budgets.ts';

/** An organization as its own users see it (dashboard session and overview); undefined if unknown. */
export async function organizationSummary(
  em: EntityManager,
  organizationId: string,
): Promise<DashboardOrganization | undefined> {
  return (await organizationSummaryAndBudgets(em, organizationId))?.summary;
}

/** The summary, the budget settings (a signed-in session's waits) and the two-step rule, in one read. */
export async function organizationSummaryAndBudgets(
  em: EntityManager,
  organizationId: string,
): Promise<{ summary: DashboardOrganization; budgets: BudgetSettings; requireTwoStep: boolean } | undefined> {
  const fork = em.fork();
  const [organization, approvals] = await Promise.all([
    fork.findOne(Organization, { id: organizationId }),
    fork.find(OrganizationProvider, { organization: organizationId }, { orderBy: { provider: 'asc' } }),
  ]);
  if (!organization) return undefined;
  return {
    summary: {
      id: organization.id,
      name: organization.name,
      active: organization.active,
      approvedProviders: [MOCK_PROVIDER, ...approvals.map((approval) => approval.provider)],
    },
    budgets: budgetSettingsOf(organization),
    requireTwoStep: organization.requireTwoStep,
  };
}
