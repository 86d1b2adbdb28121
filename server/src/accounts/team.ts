import { createHash, randomBytes } from 'node:crypto';
import { AppError, validationFailed } from '@pis/shared';
import { DashboardUser, Invitation, Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { invitationMail } from '../mail/templates.ts';
import type { AccountDeps } from './account-deps.ts';
import { linkInvalid } from './account-tokens.ts';
import { requireAccountMail } from './mail-budget.ts';
import { hashPassword } from './password-hash.ts';
import { assertStrongPassword } from './password-strength.ts';
import { ROLE_NAMES, type TeamRole } from './roles.ts';
import { createSession, withdrawInvitationsBy } from './sessions.ts';
import { createUser, emailKey } from './users.ts';

/**
 * Team members of an organization (issue 24 item 5, docs/decisions/046-team-and-roles.md).
 * Every change runs in a transaction that first locks the organization's row, so changes to
 * one team are serialised: a role change racing a removal, or two owners demoting each other,
 * cannot leave the organization without an owner.
 */
export const INVITATION_LIFETIME_MS = 7 * 24 * 60 * 60_000;
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const idOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

const lastOwner = () =>
  new AppError('FORBIDDEN', 'An organization needs an owner: make another member Owner first');
const notMember = () => new AppError('NOT_FOUND', 'No such member in your organization');

async function lockTeam(tx: EntityManager, organizationId: string): Promise<void> {
  await tx.execute('select id from organization where id = ? for update', [organizationId]);
}

async function ownersOf(tx: EntityManager, organizationId: string): Promise<number> {
  return tx.count(DashboardUser, { organization: organizationId, role: 'owner' });
}

/** The members and the invitations still open, for the Team page. */
export async function listTeam(em: EntityManager, organizationId: string, now: Date) {
  const fork = em.fork();
  const [members, invitations] = await Promise.all([
    fork.find(DashboardUser, { organization: organizationId }, { orderBy: { createdAt: 'asc' } }),
    fork.find(
      Invitation,
      { organization: organizationId, acceptedAt: null, withdrawnAt: null, expiresAt: { $gt: now } },
      { orderBy: { createdAt: 'asc' } },
    ),
  ]);
  return {
    members: members.map((user) => ({
      id: user.id,
      email: user.email,
      role: user.role,
      twoStep: user.totpEnabledAt != null,
    })),
    invitations: invitations.map((invitation) => ({
      email: invitation.email,
      role: invitation.role,
      expiresAt: invitation.expiresAt.toISOString(),
    })),
  };
}

/**
 * Invites an address with a role: a single-use link for 7 days, mailed. Waits for the inviter's
 * own address to be verified (an unverified account could be anyone's). An address that already
 * has an account is refused (one account per address, in one organization).
 */
export async function invite(
  deps: AccountDeps,
  inviter: {
    userId: string;
    sessionId: string;
    email: string;
    emailVerified: boolean;
    organizationId: string;
  },
  input: { email: string; role: TeamRole },
  setHeader?: (name: string, value: string) => void,
) {
  if (!inviter.emailVerified) {
    throw new AppError('FORBIDDEN', 'Confirm your email address first: invitations wait for it');
  }
  const email = emailKey(input.email);
  const fork = deps.em.fork();
  if ((await fork.count(DashboardUser, { email })) > 0) {
    throw validationFailed([{ field: 'email', message: 'already has a dashboard account' }]);
  }
  const organization = await fork.findOneOrFail(Organization, { id: inviter.organizationId });
  // Counted before anything is stored: an invitation over the budget leaves no open link.
  await requireAccountMail(
    deps.em,
    { userId: inviter.userId, organizationId: inviter.organizationId, to: email },
    setHeader,
  );
  const now = deps.clock.now();
  const token = randomBytes(32).toString('base64url');
  await fork.transactional(async (tx) => {
    // A new invitation to the same address replaces the open one: only the newest link works.
    await tx.nativeUpdate(
      Invitation,
      { organization: organization.id, email, acceptedAt: null },
      { expiresAt: now },
    );
    await tx.insert(Invitation, {
      id: idOf(token),
      organization: organization.id,
      email,
      role: input.role,
      invitedBy: inviter.email,
      invitedByUser: inviter.userId,
      invitedBySession: inviter.sessionId,
      createdAt: now,
      expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS),
      acceptedAt: null,
    });
  });
  await deps.mail.queue(
    'invitation',
    invitationMail({
      to: email,
      organizationName: organization.name,
      invitedBy: inviter.email,
      role: ROLE_NAMES[input.role],
      url: `${deps.publicBaseUrl}/dashboard/accept-invitation#token=${token}`,
    }),
  );
  return { invited: true as const, email, role: input.role };
}

/** An Owner withdraws an open invitation: its link then answers that it was withdrawn. */
export async function withdrawInvitation(
  em: EntityManager,
  organizationId: string,
  email: string,
  now: Date,
) {
  const withdrawn = await em.fork().nativeUpdate(
    Invitation,
    {
      organization: organizationId,
      email: emailKey(email),
      acceptedAt: null,
      withdrawnAt: null,
      expiresAt: { $gt: now },
    },
    { withdrawnAt: now },
  );
  if (withdrawn === 0) throw new AppError('NOT_FOUND', 'No open invitation to that address');
  return { withdrawn: true as const, email: emailKey(email) };
}

async function openInvitation(em: EntityManager, token: string, now: Date) {
  if (!TOKEN_FORMAT.test(token)) throw linkInvalid();
  const invitation = await em.findOne(Invitation, { id: idOf(token) });
  if (!invitation || invitation.acceptedAt) throw linkInvalid();
  if (invitation.withdrawnAt) {
    throw new AppError('LINK_EXPIRED', 'This invitation was withdrawn: ask the organization for a new one.');
  }
  if (invitation.expiresAt.getTime() <= now.getTime()) {
    throw new AppError('LINK_EXPIRED', 'This invitation has expired: ask for a new one.');
  }
  return invitation;
}

/** What the acceptance page shows before the invitee chooses a password. */
export async function describeInvitation(em: EntityManager, token: string, now: Date) {
  const fork = em.fork();
  const invitation = await openInvitation(fork, token, now);
  const organization = await fork.findOneOrFail(Organization, { id: invitation.organization });
  return {
    email: invitation.email,
    role: invitation.role,
    organizationName: organization.name,
    invitedBy: invitation.invitedBy,
  };
}

/**
 * Accepts an invitation: a new account for the invited address (verified: the link reached it)
 * in the organization with the role, and a session. Only while signed out (a signed-in user
 * accepting someone's link is refused before this: account.procedures.ts). Spent by a
 * conditional UPDATE: two racing acceptances end with one account.
 */
export async function acceptInvitation(deps: AccountDeps, token: string, password: string) {
  const now = deps.clock.now();
  const invitation = await openInvitation(deps.em.fork(), token, now);
  const organization = await deps.em.fork().findOneOrFail(Organization, { id: invitation.organization });
  await assertStrongPassword(password, [invitation.email, organization.name]);
  const passwordHash = await hashPassword(password);
  return deps.em.fork().transactional(async (tx) => {
    const spent = await tx.nativeUpdate(
      Invitation,
      // Still open as the password was hashed: not withdrawn, replaced or expired meanwhile.
      { id: invitation.id, acceptedAt: null, withdrawnAt: null, expiresAt: { $gt: now } },
      { acceptedAt: now },
    );
    if (spent !== 1) throw linkInvalid();
    const { userId } = await createUser(
      tx,
      { organizationId: invitation.organization, email: invitation.email, passwordHash },
      deps.clock,
    );
    await tx.nativeUpdate(DashboardUser, { id: userId }, { role: invitation.role, emailVerifiedAt: now });
    const session = await createSession(tx, userId, deps.clock);
    return {
      userId,
      email: invitation.email,
      role: invitation.role,
      organizationId: invitation.organization,
      session,
    };
  });
}

/** Changes a member's role (Owner only); the last owner cannot be demoted. */
export async function setMemberRole(
  em: EntityManager,
  organizationId: string,
  userId: string,
  role: TeamRole,
) {
  return em.fork().transactional(async (tx) => {
    await lockTeam(tx, organizationId);
    const member = await tx.findOne(DashboardUser, { id: userId, organization: organizationId });
    if (!member) throw notMember();
    if (member.role === 'owner' && role !== 'owner' && (await ownersOf(tx, organizationId)) <= 1)
      throw lastOwner();
    member.role = role;
    await tx.flush();
    // A member who may no longer invite leaves no open invitation behind.
    if (role !== 'owner') await withdrawInvitationsBy(tx, userId, new Date());
    return { id: member.id, email: member.email, role };
  });
}

/**
 * Removes a member (Owner only, or anyone leaving: `userId` is their own): the account goes and
 * with it every session and token (cascade), so a removed member is signed out everywhere at
 * once. The last owner can neither leave nor be removed.
 */
export async function removeMember(em: EntityManager, organizationId: string, userId: string) {
  return em.fork().transactional(async (tx) => {
    await lockTeam(tx, organizationId);
    const member = await tx.findOne(DashboardUser, { id: userId, organization: organizationId });
    if (!member) throw notMember();
    if (member.role === 'owner' && (await ownersOf(tx, organizationId)) <= 1) throw lastOwner();
    await withdrawInvitationsBy(tx, userId, new Date());
    await tx.nativeDelete(DashboardUser, { id: userId });
    return { removed: true as const, id: userId, email: member.email };
  });
}
