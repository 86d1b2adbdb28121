import { AppError, type DashboardOrganization, MESSAGES, type PaymentMode } from '@pis/shared';
import type { Clock } from '../clock.ts';
import { DashboardSession, DashboardUser, Invitation } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { organizationSummaryAndBudgets } from '../organizations/organization-summary.ts';
import type { BudgetSettings } from '../rate-limits/organization-budgets.ts';
import { spendOpenAccountTokens } from './account-tokens.ts';
import type { TeamRole } from './roles.ts';
import { newCsrfToken, newSessionToken, sameToken, sessionIdOf } from './session-token.ts';

/**
 * Server-side dashboard sessions: the cookie holds a random token, the table its SHA-256, so
 * signing out (deleting the row) ends the session everywhere at once. A session ends after
 * IDLE_MS without a request or ABSOLUTE_MS after sign-in, whichever comes first.
 */
export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
/** `lastSeenAt` is written at most this often (a page makes several calls per view). */
const TOUCH_EVERY_MS = 60_000;

/**
 * What the dashboard's procedures need of the HTTP exchange: the session cookie, the CSRF
 * header and a way to set or clear the cookie (made from the request by http/dashboard-http.ts).
 * Cookies are parsed only when a dashboard procedure asks. (The client's address and response
 * headers are the context's own.)
 */
export interface DashboardHttp {
  sessionToken(): string | undefined;
  csrfHeader(): string | undefined;
  setSessionCookie(token: string, expiresAt: Date): void;
  clearSessionCookie(): void;
}

export interface ActiveSession {
  id: string;
  userId: string;
  email: string;
  emailVerified: boolean;
  /** What this member may change (accounts/roles.ts). */
  role: TeamRole;
  organization: DashboardOrganization;
  /** The organization's budget settings (its waiting reads). */
  budgets: BudgetSettings;
  /** The organization requires two-step verification and this user has not set it up yet. */
  twoStepMissing: boolean;
  csrfToken: string;
  /** The dashboard's test/live switch: which payments its pages show. */
  mode: PaymentMode;
  /** When the member last proved who they are on this session (sign-in or a confirmation). */
  authenticatedAt: Date;
}

/**
 * Changes that would let a stolen or forgotten session outlive its owner's "Sign out
 * everywhere" (invite, change a role, remove a member, withdraw an invitation, require or lift
 * two-step for the team, make an API key) on a session signed in longer ago than this ask for
 * the password or a two-step code first (issue 31 item 6 and its review).
 */
export const RECENT_SIGN_IN_MS = 15 * 60_000;

export function requireRecentSignIn(session: { authenticatedAt: Date }, now: Date): void {
  if (now.getTime() - session.authenticatedAt.getTime() <= RECENT_SIGN_IN_MS) return;
  throw new AppError(
    'REAUTHENTICATION_REQUIRED',
    'Confirm it is you first: you signed in more than 15 minutes ago, and this change asks for your password (or a two-step code) again',
  );
}

export const notSignedIn = () => new AppError('UNAUTHORIZED', 'Not signed in');
const sessionExpired = () => new AppError('UNAUTHORIZED', 'Your session has expired: sign in again');

/**
 * A new session for a user, in the caller's transaction when there is one (sign-up: the
 * organization, the user and the session together or nothing). The caller sets the cookie
 * (`setSessionCookie`) once the transaction has committed.
 */
export async function createSession(
  em: EntityManager,
  userId: string,
  clock: Clock,
): Promise<{ token: string; expiresAt: Date; csrfToken: string }> {
  const now = clock.now();
  const token = newSessionToken();
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  const session = em.create(DashboardSession, {
    id: sessionIdOf(token) as string,
    user: userId,
    csrfToken: newCsrfToken(),
    createdAt: now,
    authenticatedAt: now,
    lastSeenAt: now,
    expiresAt,
  });
  await em.flush();
  return { token, expiresAt, csrfToken: session.csrfToken };
}

/**
 * The signed-in user behind the request's cookie, or 401 (none, unknown, signed out, idle or
 * past its absolute end) or 403 (the organization is not active, unless `anyOrganization`:
 * signing out must work for a suspended organization's user too).
 */
export async function authenticateSession(
  em: EntityManager,
  http: DashboardHttp,
  clock: Clock,
  { anyOrganization = false }: { anyOrganization?: boolean } = {},
): Promise<ActiveSession> {
  const id = sessionIdOf(http.sessionToken());
  if (!id) throw notSignedIn();
  const fork = em.fork();
  const session = await fork.findOne(DashboardSession, { id });
  if (!session) throw notSignedIn();
  const now = clock.now();
  if (!isLive(session, now)) {
    await fork.nativeDelete(DashboardSession, { id });
    http.clearSessionCookie();
    throw sessionExpired();
  }
  const user = await fork.findOne(DashboardUser, { id: session.user });
  const found = user && (await organizationSummaryAndBudgets(fork, user.organization));
  if (!user || !found) throw notSignedIn();
  const organization = found.summary;
  if (!organization.active && !anyOrganization) {
    throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);
  }
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await fork.nativeUpdate(DashboardSession, { id }, { lastSeenAt: now });
  }
  return {
    id,
    userId: user.id,
    email: user.email,
    emailVerified: user.emailVerifiedAt != null,
    role: user.role,
    organization,
    budgets: found.budgets,
    twoStepMissing: found.requireTwoStep && user.totpEnabledAt == null,
    csrfToken: session.csrfToken,
    mode: session.mode,
    authenticatedAt: session.authenticatedAt,
  };
}

/**
 * The header's test/live switch, kept on the session (this browser only). Live needs a verified
 * email address (DashboardSession.user.emailVerified), as other live-facing steps do.
 */
export async function setSessionMode(em: EntityManager, session: ActiveSession, mode: PaymentMode) {
  if (mode === 'live' && !session.emailVerified) {
    throw new AppError('FORBIDDEN', 'Verify your email address before you look at live payments');
  }
  await em.fork().nativeUpdate(DashboardSession, { id: session.id }, { mode });
  return { ...session, mode };
}

const isLive = (session: DashboardSession, now: Date) =>
  session.expiresAt.getTime() > now.getTime() &&
  session.lastSeenAt.getTime() + SESSION_IDLE_MS > now.getTime();

export const csrfTokenMatches = (session: ActiveSession, presented: string | undefined): boolean =>
  sameToken(session.csrfToken, presented);

/** Signs out: the row goes, so the cookie is worthless even if a copy of it survives. */
export async function endSession(em: EntityManager, http: DashboardHttp, session: ActiveSession) {
  await em.fork().nativeDelete(DashboardSession, { id: session.id });
  http.clearSessionCookie();
  return { signedOut: true as const };
}

/** Deletes sessions that ended (by idle time or their absolute end); run on each sign-in. */
export async function purgeEndedSessions(em: EntityManager, now: Date): Promise<void> {
  await em.fork().nativeDelete(DashboardSession, {
    $or: [{ expiresAt: { $lte: now } }, { lastSeenAt: { $lte: new Date(now.getTime() - SESSION_IDLE_MS) } }],
  });
}

/**
 * A member's open invitations are withdrawn (sessions ended, removed, no longer an Owner), but
 * those made by the session `keep`.
 */
export async function withdrawInvitationsBy(em: EntityManager, userId: string, now: Date, keep?: string) {
  await em.nativeUpdate(
    Invitation,
    {
      invitedByUser: userId,
      acceptedAt: null,
      withdrawnAt: null,
      // (Made before sessions were recorded on invitations: no session, so not the one kept.)
      ...(keep ? { $or: [{ invitedBySession: null }, { invitedBySession: { $ne: keep } }] } : {}),
    },
    { withdrawnAt: now },
  );
}

/**
 * Ends every session of a user but `keep` (the one asking, when there is one): sign out
 * everywhere, a changed password, a reset, a member removed. Whatever those sessions could still
 * set going dies with them (issue 31 items 6 and 7): the open invitations they made are
 * withdrawn, and the user's unused password-reset links stop working (a stolen session's reset
 * link or invitation must not outlive the owner's "Sign out everywhere"). Resolves to how many
 * sessions ended.
 */
export async function endSessionsOf(em: EntityManager, userId: string, keep?: string): Promise<number> {
  const fork = em.fork();
  const now = new Date();
  await withdrawInvitationsBy(fork, userId, now, keep);
  await spendOpenAccountTokens(fork, userId, 'password-reset', now);
  return fork.nativeDelete(DashboardSession, keep ? { user: userId, id: { $ne: keep } } : { user: userId });
}
