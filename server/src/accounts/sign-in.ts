import { AppError, type DashboardSession, MESSAGES, type SignInInput } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import { organizationSummary } from '../organizations/organization-summary.ts';
import { issueAccountToken, readAccountToken, spendAccountToken } from './account-tokens.ts';
import { passwordMatches, spendPasswordCheck } from './password-hash.ts';
import type { TeamRole } from './roles.ts';
import { createSession, type DashboardHttp, purgeEndedSessions } from './sessions.ts';
import { type AccountClient, throttleAccountAttempt } from './sign-in-throttle.ts';
import { spendTwoStepCode } from './two-step.ts';
import { emailKey, findUserByEmail } from './users.ts';

/** One answer for an unknown email and a wrong password, so the form tells nobody who has an account. */
const wrongCredentials = () => new AppError('UNAUTHORIZED', 'Email or password is incorrect');

/**
 * Signs a user in: throttled per address and per email, the password checked with argon2 (a
 * dummy hash for an unknown email, so both answers take as long), then a fresh session and its
 * cookie. A user of an inactive organization is refused (only after the password matched).
 * With two-step verification on, the right password answers a challenge instead (no session,
 * no cookie): `signInWithCode` takes it with the code (accounts/two-step.ts).
 */
export async function signIn(
  em: EntityManager,
  http: DashboardHttp,
  client: AccountClient,
  input: SignInInput,
  clock: Clock,
): Promise<DashboardSession | { twoStepRequired: true; challenge: string }> {
  const email = emailKey(input.email);
  await throttleAccountAttempt(em, client, email);
  const user = await findUserByEmail(em, email);
  if (!user) {
    await spendPasswordCheck(input.password);
    throw wrongCredentials();
  }
  if (!(await passwordMatches(user.passwordHash, input.password))) throw wrongCredentials();
  const organization = await organizationSummary(em, user.organization);
  if (!organization) throw wrongCredentials();
  if (!organization.active) throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);

  if (user.totpEnabledAt) {
    const challenge = await issueAccountToken(
      em.fork(),
      { userId: user.id, purpose: 'two-step', email: user.email },
      clock,
    );
    return { twoStepRequired: true, challenge };
  }
  return startSession(em, http, user, organization, clock);
}

async function startSession(
  em: EntityManager,
  http: DashboardHttp,
  user: { id: string; email: string; emailVerifiedAt?: Date | null | undefined; role: TeamRole },
  organization: DashboardSession['organization'],
  clock: Clock,
): Promise<DashboardSession> {
  const now = clock.now();
  await purgeEndedSessions(em, now);
  const session = await createSession(em.fork(), user.id, clock);
  http.setSessionCookie(session.token, session.expiresAt);
  return {
    user: { id: user.id, email: user.email, emailVerified: user.emailVerifiedAt != null, role: user.role },
    organization,
    csrfToken: session.csrfToken,
    mode: 'test',
  };
}

/**
 * The sign-in's second step: the challenge from the password step and a code from the app (or
 * a recovery code). Throttled like the password (per email and address); a wrong code leaves
 * the challenge usable until it expires (5 minutes), a right one spends both.
 */
export async function signInWithCode(
  em: EntityManager,
  http: DashboardHttp,
  client: AccountClient,
  input: { challenge: string; code: string },
  clock: Clock,
): Promise<DashboardSession & { usedRecoveryCode: boolean }> {
  const token = await readAccountToken(em.fork(), input.challenge, 'two-step', clock);
  await throttleAccountAttempt(em, client, token.email, 'two-step');
  const spent = await spendTwoStepCode(em, token.user, input.code, clock);
  await spendAccountToken(em.fork(), input.challenge, 'two-step', clock);
  const user = await findUserByEmail(em, token.email);
  if (!user || user.id !== token.user) throw wrongCredentials();
  const organization = await organizationSummary(em, user.organization);
  if (!organization) throw wrongCredentials();
  if (!organization.active) throw new AppError('FORBIDDEN', MESSAGES.organizationInactive);
  return {
    ...(await startSession(em, http, user, organization, clock)),
    usedRecoveryCode: spent.with === 'recovery-code',
  };
}
