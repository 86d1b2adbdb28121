import type { DashboardSession, SignUpInput } from '@pis/shared';
import type { z } from 'zod';
import type { RateLimitConfig } from '../config.ts';
import { createOrganization } from '../organizations/organization-admin.ts';
import { organizationSummary } from '../organizations/organization-summary.ts';
import type { AccountDeps } from './account-deps.ts';
import { sendVerification } from './account-lifecycle.ts';
import { hashPassword } from './password-hash.ts';
import { assertStrongPassword } from './password-strength.ts';
import { createSession, type DashboardHttp } from './sessions.ts';
import { type AccountClient, throttleAccountAttempt, throttleSignUp } from './sign-in-throttle.ts';
import { createUser, emailKey } from './users.ts';

type SignUpCommand = z.output<typeof SignUpInput>;

/**
 * Self-serve sign-up: an active organization that may use only the Mock bank (as the spec says
 * of a new organization) with a tenth of the default API budgets until an operator raises them
 * (rate-limits/organization-budgets.ts), its first user and a signed-in session, in one
 * transaction: a taken email (or any failure) leaves nothing behind.
 */
export async function signUp(
  deps: AccountDeps,
  http: DashboardHttp,
  client: AccountClient,
  input: SignUpCommand,
  limits: RateLimitConfig,
): Promise<DashboardSession> {
  const { em, clock } = deps;
  await throttleAccountAttempt(em, client, undefined);
  await assertStrongPassword(input.password, [input.email, input.businessName]);
  await throttleSignUp(em, client, limits);
  // Hashed before the transaction: no row lock or connection is held for the argon2 time.
  const passwordHash = await hashPassword(input.password);
  const created = await em.fork().transactional(async (tx) => {
    const { organizationId } = await createOrganization(tx, input.businessName, clock, {
      reducedBudgets: true,
    });
    const { userId } = await createUser(tx, { organizationId, email: input.email, passwordHash }, clock);
    const session = await createSession(tx, userId, clock);
    return { organizationId, userId, session };
  });
  // Read back as every session sees it: which providers a new organization has is the
  // organizations module's rule, not this one's.
  const organization = await organizationSummary(em, created.organizationId);
  if (!organization) throw new Error(`organization ${created.organizationId} vanished after sign-up`);
  http.setSessionCookie(created.session.token, created.session.expiresAt);
  // Signed in at once and test mode works; the link proves the address (live mode waits for it).
  await sendVerification(
    deps,
    {
      id: created.userId,
      email: emailKey(input.email),
      organizationId: created.organizationId,
    },
    'skip',
  ).catch((error: unknown) => deps.log.error({ err: error }, 'verification mail not queued'));
  return {
    user: { id: created.userId, email: emailKey(input.email), emailVerified: false, role: 'owner' },
    organization,
    csrfToken: created.session.csrfToken,
    mode: 'test',
  };
}
