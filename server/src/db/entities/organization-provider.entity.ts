import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';

/**
 * An operator's approval of an organization for a provider other than `mock`.
 * `mock` is implicit for every organization and never stored.
 */
export const OrganizationProvider = defineEntity({
  name: 'OrganizationProvider',
  tableName: 'organization_provider',
  properties: {
    organization: () => p.manyToOne(Organization).primary().deleteRule('cascade'),
    provider: p.string().primary().length(50),
    approvedAt: p.datetime(),
  },
});
export type OrganizationProvider = InferEntity<typeof OrganizationProvider>;
