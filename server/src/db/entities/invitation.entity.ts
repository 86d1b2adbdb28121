import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { TEAM_ROLES } from './dashboard-user.entity.ts';
import { Organization } from './organization.entity.ts';

/**
 * An invitation to join an organization with a role (accounts/team.ts): mailed as a link, 7
 * days, single use. Only the SHA-256 of the token is stored (`id`).
 */
export const Invitation = defineEntity({
  name: 'Invitation',
  tableName: 'invitation',
  properties: {
    id: p.string().length(64).primary(),
    organization: () => p.manyToOne(Organization).mapToPk().deleteRule('cascade').index(),
    email: p.string().length(254),
    role: p.enum(TEAM_ROLES),
    /** The inviter's email, for the invitee's page and mail. */
    invitedBy: p.string().length(254),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    /** Withdrawn by an Owner, or with the session that made it (sign out everywhere, a password change). */
    withdrawnAt: p.datetime().nullable(),
    /** The member and the session (its id, a hash) that made it. */
    invitedByUser: p.string().length(40).nullable(),
    invitedBySession: p.string().length(64).nullable(),
  },
});
export type Invitation = InferEntity<typeof Invitation>;
