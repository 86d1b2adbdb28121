import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError, validationFailed } from '@pis/shared';
import { DashboardUser, Organization } from '../db/entities/index.ts';
import {
  emailChangedMail,
  passwordChangedMail,
  passwordResetMail,
  verifyEmailMail,
} from '../mail/templates.ts';
import { consumeRateLimit } from '../rate-limits/rate-limit-store.ts';
import { type AccountDeps, tokenLink } from './account-deps.ts';
import {
  issueAccountToken,
  linkInvalid,
  readAccountToken,
  spendAccountToken,
  spendOpenAccountTokens,
} from './account-tokens.ts';
import { mayNotify, requireAccountMail, spendAccountMail } from './mail-budget.ts';
import { hashPassword, passwordMatches, spendPasswordCheck } from './password-hash.ts';
import { assertStrongPassword } from './password-strength.ts';
import { type ActiveSession, endSessionsOf } from './sessions.ts';
import { type AccountClient, throttleAccountAttempt } from './sign-in-throttle.ts';
import { emailKey, emailTaken, findUserByEmail } from './users.ts';

const organizationName = async (deps: AccountDeps, organizationId: string) =>
  (await deps.em.fork().findOne(Organization, { id: organizationId }, { fields: ['name'] }))?.name ?? '';

/**
 * A verification link to the user's current address (sign-up, "Resend", a changed email),
 * within the account-mail budgets (mail-budget.ts): past one, "Resend" is refused with 429
 * (`refuse`, the setHeader for its Retry-After), and the mail a sign-up or an email change sends
 * by itself is not sent (`skip`: that action stands; "Resend" works once the budget frees).
 */
export async function sendVerification(
  deps: AccountDeps,
  user: { id: string; email: string; organizationId: string },
  overBudget: { refuse: (name: string, value: string) => void } | 'skip',
): Promise<void> {
  const mail = { userId: user.id, organizationId: user.organizationId, to: user.email };
  if (overBudget === 'skip') {
    if (!(await spendAccountMail(deps.em, mail)).allowed) {
      deps.log.warn({ userId: user.id }, 'verification mail over its budget: not sent');
      return;
    }
  } else {
    await requireAccountMail(deps.em, mail, overBudget.refuse);
  }
  const token = await issueAccountToken(
    deps.em.fork(),
    { userId: user.id, purpose: 'verify-email', email: user.email },
    deps.clock,
  );
  await deps.mail.queue(
    'verify-email',
    verifyEmailMail({
      to: user.email,
      organizationName: await organizationName(deps, user.organizationId),
      url: tokenLink(deps, 'verify-email', token),
    }),
  );
}

/**
 * The link from a verification mail: proves the address it was sent to. A link sent to an
 * address the account no longer uses proves nothing (LINK_INVALID).
 */
export async function verifyEmail(deps: AccountDeps, token: string) {
  return deps.em.fork().transactional(async (tx) => {
    const { userId, email } = await spendAccountToken(tx, token, 'verify-email', deps.clock);
    const user = await tx.findOne(DashboardUser, { id: userId });
    if (!user || user.email !== email) throw linkInvalid();
    if (!user.emailVerifiedAt) user.emailVerifiedAt = deps.clock.now();
    await tx.flush();
    return { verified: true as const, email: user.email };
  });
}

/**
 * "Forgot password?": the same answer, at once, for every address. The work (finding the user,
 * a token, the mail) runs after the answer, so a known address and an unknown one answer in the
 * same time; only the known one gets mail. Throttled per address and per (email, address), like
 * sign-in; on top, at most a few reset mails per account per window are queued (quietly), so the
 * form cannot be used to flood someone's inbox.
 */
export async function requestPasswordReset(
  deps: AccountDeps,
  client: AccountClient,
  email: string,
): Promise<{ requested: true }> {
  const key = emailKey(email);
  await throttleAccountAttempt(deps.em, client, key, 'reset');
  void sendPasswordReset(deps, key).catch((error: unknown) => {
    deps.log.error({ err: error }, 'password reset mail not queued');
  });
  return { requested: true };
}

async function sendPasswordReset(deps: AccountDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.em, email);
  if (!user) return;
  const budget = await consumeRateLimit(deps.em.fork(), {
    key: `dashboard-reset-mail:${user.id}`,
    limit: 5,
    windowSeconds: 60 * 60,
  });
  if (!budget.allowed) return;
  const token = await issueAccountToken(
    deps.em.fork(),
    { userId: user.id, purpose: 'password-reset', email: user.email },
    deps.clock,
  );
  await deps.mail.queue(
    'password-reset',
    passwordResetMail({ to: user.email, url: tokenLink(deps, 'reset-password', token) }),
  );
}

/**
 * The reset link's form: a new password (not guessable), every session ended (whoever had the
 * old password is out), and a notice to the address. The user then signs in.
 */
export async function resetPassword(deps: AccountDeps, token: string, password: string) {
  // Checked first (a bad link is answered before any argon2 time), spent only once the new
  // password is acceptable: a weak one is refused and the same link still works.
  const link = await readAccountToken(deps.em.fork(), token, 'password-reset', deps.clock);
  const user = await deps.em.fork().findOneOrFail(DashboardUser, { id: link.user });
  // A link mailed to an address the account no longer uses resets nothing (as verifyEmail).
  if (user.email !== link.email) throw linkInvalid();
  const name = await organizationName(deps, user.organization);
  await assertStrongPassword(password, [user.email, name]);
  const passwordHash = await hashPassword(password);
  await deps.em.fork().transactional(async (tx) => {
    await spendAccountToken(tx, token, 'password-reset', deps.clock);
    await tx.nativeUpdate(DashboardUser, { id: user.id }, { passwordHash });
  });
  await endSessionsOf(deps.em, user.id);
  await deps.mail.queue('password-changed', passwordChangedMail({ to: user.email, organizationName: name }));
  // Who, for the audit log (the answer itself is only `reset`).
  return { reset: true as const, email: user.email, organizationId: user.organization };
}

const setPassword = async (deps: AccountDeps, userId: string, password: string) => {
  const passwordHash = await hashPassword(password);
  await deps.em.fork().nativeUpdate(DashboardUser, { id: userId }, { passwordHash });
};

const wrongPassword = (field: string) =>
  validationFailed([{ field, message: 'is not your current password' }]);

/**
 * Re-authentication for a change on a signed-in session: the current password, throttled like
 * a sign-in (a stolen session must not become a password oracle). Two-step's changes use it
 * too, before their code (two-step.ts).
 */
export async function reauthenticate(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  password: string,
  field: string,
) {
  await throttleAccountAttempt(deps.em, client, session.email);
  const user = await deps.em.fork().findOne(DashboardUser, { id: session.userId });
  if (!user) {
    await spendPasswordCheck(password);
    throw new AppError('UNAUTHORIZED', 'Not signed in');
  }
  if (!(await passwordMatches(user.passwordHash, password))) throw wrongPassword(field);
  return user;
}

/** Settings: change password. Every other session ends; this one stays; the address is told. */
export async function changePassword(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  input: { currentPassword: string; newPassword: string },
) {
  const user = await reauthenticate(deps, client, session, input.currentPassword, 'currentPassword');
  await assertStrongPassword(input.newPassword, [user.email, session.organization.name], 'newPassword');
  await setPassword(deps, user.id, input.newPassword);
  const otherSessionsEnded = await endSessionsOf(deps.em, user.id, session.id);
  if (await mayNotify(deps.em, { to: user.email, verified: user.emailVerifiedAt != null })) {
    await deps.mail.queue(
      'password-changed',
      passwordChangedMail({ to: user.email, organizationName: session.organization.name }),
    );
  }
  return { changed: true as const, otherSessionsEnded };
}

/**
 * Settings: change email. The old address is told, the new one gets a verification link and
 * stays unverified until it is used (live mode and invitations wait again).
 */
export async function changeEmail(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  input: { password: string; newEmail: string },
) {
  const user = await reauthenticate(deps, client, session, input.password, 'password');
  const newEmail = emailKey(input.newEmail);
  if (newEmail === user.email) {
    throw validationFailed([{ field: 'newEmail', message: 'is already your email' }]);
  }
  const oldEmail = user.email;
  try {
    const changed = await deps.em
      .fork()
      .nativeUpdate(
        DashboardUser,
        { id: user.id, email: oldEmail },
        { email: newEmail, emailVerifiedAt: null },
      );
    if (changed !== 1) {
      throw validationFailed([
        {
          field: 'newEmail',
          message: 'could not be saved: your account changed meanwhile, reload and try again',
        },
      ]);
    }
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw emailTaken('newEmail');
    throw error;
  }
  // A reset link mailed to the old address must not take the account back (issue 31 item 7).
  await spendOpenAccountTokens(deps.em.fork(), user.id, 'password-reset', deps.clock.now());
  if (await mayNotify(deps.em, { to: oldEmail, verified: user.emailVerifiedAt != null })) {
    await deps.mail.queue(
      'email-changed',
      emailChangedMail({ to: oldEmail, organizationName: session.organization.name, newEmail }),
    );
  }
  await sendVerification(deps, { id: user.id, email: newEmail, organizationId: user.organization }, 'skip');
  return { email: newEmail, emailVerified: false as const };
}

/** Settings: "Sign out everywhere": every other session of the user ends at once. */
export async function signOutEverywhere(deps: AccountDeps, session: ActiveSession) {
  return { otherSessionsEnded: await endSessionsOf(deps.em, session.userId, session.id) };
}
