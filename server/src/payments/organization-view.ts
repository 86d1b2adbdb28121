import { MOCK_PROVIDER } from '@pis/shared';
import { Organization, OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/** What a customer page needs of the merchant: its name and the providers it may use. */
export interface OrganizationView {
  id: string;
  name: string;
  /** An operator verified it (`org:verify`): its customer pages show its brand. */
  verified: boolean;
  /** False while an operator has suspended it (`org:set-active --active false`). */
  active: boolean;
  /** Always contains `mock`, as for API callers. */
  approvedProviders: string[];
}

export async function organizationView(em: EntityManager, organizationId: string): Promise<OrganizationView> {
  const fork = em.fork();
  const [organization, approvals] = await Promise.all([
    fork.findOne(Organization, { id: organizationId }),
    fork.find(OrganizationProvider, { organization: organizationId }, { orderBy: { provider: 'asc' } }),
  ]);
  return {
    id: organizationId,
    name: organization?.name ?? '',
    verified: organization?.verifiedAt != null,
    active: organization?.active ?? false,
    approvedProviders: [MOCK_PROVIDER, ...approvals.map((approval) => approval.provider)],
  };
}
