import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';

/** What a member may do (accounts/roles.ts); the first user of an organization is its owner. */
export const TEAM_ROLES = ['owner', 'developer', 'support', 'viewer'] as const;

/**
 * A person who signs in to the merchant dashboard, in one organization. Email is stored trimmed
 * and lower-cased (accounts/users.ts), so the unique constraint holds regardless of case; the
 * password is kept only as an argon2id hash (PHC string with its own salt and parameters).
 */
export const DashboardUser = defineEntity({
  name: 'DashboardUser',
  tableName: 'dashboard_user',
  properties: {
    id: p.string().primary().length(40),
    organization: () => p.manyToOne(Organization).mapToPk().deleteRule('cascade').index(),
    email: p.string().length(254).unique(),
    passwordHash: p.text(),
    createdAt: p.datetime(),
    /** When `email` was proven by a verification link; null until then (live mode waits for it). */
    emailVerifiedAt: p.datetime().nullable(),
    /**
     * Two-step sign-in (accounts/two-step.ts): the TOTP secret (base32; never returned after
     * setup), the one being set up until a code proves it, when it was turned on, the last
     * accepted time step (a code is refused twice) and the unused recovery codes' SHA-256 hashes.
     */
    totpSecret: p.text().nullable(),
    totpPendingSecret: p.text().nullable(),
    totpEnabledAt: p.datetime().nullable(),
    totpLastStep: p.bigint('number').nullable(),
    totpRecoveryHashes: p.json<string[]>().nullable(),
    role: p.enum(TEAM_ROLES).default('owner'),
  },
});
export type DashboardUser = InferEntity<typeof DashboardUser>;
