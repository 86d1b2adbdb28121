import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';

/**
 * How a merchant's customer pages look (dashboard Settings > Brand): shown only once an operator
 * verified the organization (`organization.verified_at`, `org:verify`). Written only through
 * organizations/brand.ts, which checks the logo and the colour first. Its own table, so that the
 * organization row every page and key reads stays small.
 */
export const OrganizationBrand = defineEntity({
  name: 'OrganizationBrand',
  tableName: 'organization_brand',
  properties: {
    organization: () => p.oneToOne(Organization).primary().owner().deleteRule('cascade'),
    displayName: p.string().length(60).nullable(),
    /** `#rrggbb`, at least 4.5:1 against the pages' background. */
    accentColor: p.string().length(7).nullable(),
    logo: p.blob().nullable().lazy(),
    logoType: p.string().length(20).nullable(),
    /** SHA-256 of the logo (hex): its URL, so a new logo is a new address and the old one can be cached for ever. */
    logoHash: p.string().length(64).nullable(),
    updatedAt: p.datetime(),
  },
});
export type OrganizationBrand = InferEntity<typeof OrganizationBrand>;
