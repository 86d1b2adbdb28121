import { AppError } from '@pis/shared';
import type { TEAM_ROLES } from '../db/entities/dashboard-user.entity.ts';

export type TeamRole = (typeof TEAM_ROLES)[number];

/**
 * What each role may change (issue 24 item 5; reads are every role's). Checked in the
 * procedures' middleware (trpc/dashboard-procedures.ts), never only by hiding buttons:
 * - `write`: API keys, creating payments, settings: Owner and Developer;
 * - `support`: a payment's cancel, the sandbox's approve/reject, a new customer link: Owner,
 *   Developer and Support;
 * - `team`: inviting, changing roles, removing members: Owner only.
 * A member's own account (password, email, two-step, sign out) is every role's.
 */
export type RolePermission = 'write' | 'support' | 'team';

const ALLOWED: Record<RolePermission, readonly TeamRole[]> = {
  write: ['owner', 'developer'],
  support: ['owner', 'developer', 'support'],
  team: ['owner'],
};

export const ROLE_NAMES: Record<TeamRole, string> = {
  owner: 'Owner',
  developer: 'Developer',
  support: 'Support',
  viewer: 'Viewer',
};

export const roleAllows = (role: TeamRole, permission: RolePermission): boolean =>
  ALLOWED[permission].includes(role);

export function requireRole(role: TeamRole, permission: RolePermission): void {
  if (roleAllows(role, permission)) return;
  const who = ALLOWED[permission].map((allowed) => ROLE_NAMES[allowed]).join(', ');
  throw new AppError('FORBIDDEN', `Your role (${ROLE_NAMES[role]}) cannot do this: it needs ${who}`);
}
