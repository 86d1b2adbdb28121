import { AppError, type DashboardSession, MESSAGES, type SignInInput } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import type { DashboardHttp } from '../http/dashboard-http.ts';
import { organizationSummary } from '../organizations/organization-summary.ts';
import { passwordMatches, spendPasswordCheck } from './password-hash.ts';
import { createSession, purgeEndedSessions } from './sessions.ts';
import { type AccountClient, throttleAccountAttempt } from './sign-in-throttle.ts';
import { emailKey, findUserByEmail } from './users.ts';

/** One answer for an unknown email and a wrong password, so the form tells nobody who has an account. */
const wrongCredentials = () => new AppError('UNAUTHORIZED', 'Email or password is incorrect');

/**
 * Signs a user in: throttled per address and per email, the password checked with argon2 (a
 * dummy hash for an unknown email, so both answers take as long), then a fresh session and its
 * cookie. A user of an inactive organization is refused (only after the password matched).
 */
export async function signIn(
  em: EntityManager,
  http: DashboardHttp,
  client: AccountClient,
  input: SignInInput,
  clock: Clock,
): Promise<DashboardSession> {
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

  const now = clock.now();
  await purgeEndedSessions(em, now);
  const session = await createSession(em.fork(), user.id, clock);
  http.setSessionCookie(session.token, session.expiresAt);
  return {
    user: { id: user.id, email: user.email, emailVerified: user.emailVerifiedAt != null },
    organization,
    csrfToken: session.csrfToken,
    mode: 'test',
  };
}
