import { createHash, randomBytes } from 'node:crypto';
import { AppError, validationFailed } from '@pis/shared';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Clock } from '../clock.ts';
import { DashboardSession, DashboardUser, Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { twoStepChangedMail } from '../mail/templates.ts';
import type { AccountDeps } from './account-deps.ts';
import { reauthenticate } from './account-lifecycle.ts';
import { mayNotify } from './mail-budget.ts';
import { type ActiveSession, endSessionsOf } from './sessions.ts';
import { type AccountClient, throttleAccountAttempt } from './sign-in-throttle.ts';

/**
 * Two-step sign-in with TOTP (RFC 6238 through otplib: SHA-1, 6 digits, 30 s, what every
 * authenticator app reads from a QR code) and ten single-use recovery codes
 * (docs/decisions/045-two-step-sign-in.md).
 *
 * - The secret is made by `beginTwoStep` and kept pending until a code from the app proves the
 *   app has it (`confirmTwoStep`); it is shown only then and never returned again.
 * - A code is accepted at most once: the time step it matched is stored and a code of that step
 *   or an earlier one is refused (a code seen over a shoulder or in a log cannot be replayed in
 *   its window). One step of clock drift either way is tolerated.
 * - Recovery codes are 80 random bits each, stored as SHA-256 (like the link tokens: their
 *   entropy makes a slow hash unnecessary); spending one removes its hash in one conditional
 *   UPDATE, so two racing uses of a code end with one success.
 */
export const RECOVERY_CODES = 10;
const ISSUER = 'Payment Initiation Service';
const PERIOD_SECONDS = 30;

const wrongCode = () =>
  validationFailed([
    { field: 'code', message: 'is not the current code from your app, or was already used' },
  ]);

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** `abcd-efgh-ijkm-npqr`: 16 characters of an unambiguous alphabet (no 0/o, 1/l). */
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
function newRecoveryCode(): string {
  const bytes = randomBytes(16);
  const chars = Array.from(bytes, (byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
  return chars.match(/.{4}/g)?.join('-') ?? chars;
}
/** How a typed recovery code is compared: lower case, without dashes or spaces. */
const recoveryKey = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');

const newRecoveryCodes = () => Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
const recoveryHashes = (codes: string[]) => codes.map((recovery) => sha256(recoveryKey(recovery)));

/** Starts (or restarts) setup: a new pending secret, the setup key and the QR code's URI. */
export async function beginTwoStep(em: EntityManager, userId: string) {
  const fork = em.fork();
  const user = await fork.findOneOrFail(DashboardUser, { id: userId });
  if (user.totpEnabledAt) {
    throw new AppError('FORBIDDEN', 'Two-step verification is already on for this account');
  }
  const secret = generateSecret();
  user.totpPendingSecret = secret;
  await fork.flush();
  return {
    setupKey: secret,
    otpauthUri: generateURI({ issuer: ISSUER, label: user.email, secret }),
  };
}

/** Checks a TOTP code against `secret`, after the last accepted step; the matched step, or undefined. */
async function matchedStep(
  secret: string,
  code: string,
  clock: Clock,
  lastStep: number | null,
): Promise<number | undefined> {
  if (!/^\d{6}$/.test(code)) return undefined;
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(clock.now().getTime() / 1000),
    epochTolerance: PERIOD_SECONDS,
    ...(lastStep === null ? {} : { afterTimeStep: lastStep }),
  });
  return result.valid && 'timeStep' in result ? result.timeStep : undefined;
}

/** A code from the app proves the pending secret: two-step is on; the recovery codes, shown once. */
export async function confirmTwoStep(em: EntityManager, userId: string, code: string, clock: Clock) {
  const fork = em.fork();
  const user = await fork.findOneOrFail(DashboardUser, { id: userId });
  if (user.totpEnabledAt) {
    throw new AppError('FORBIDDEN', 'Two-step verification is already on for this account');
  }
  if (!user.totpPendingSecret) {
    throw new AppError('FORBIDDEN', 'Start the setup first ("Set up"): there is no setup key to verify');
  }
  const step = await matchedStep(user.totpPendingSecret, code, clock, null);
  if (step === undefined) throw wrongCode();
  const recoveryCodes = newRecoveryCodes();
  user.totpSecret = user.totpPendingSecret;
  user.totpPendingSecret = null;
  user.totpEnabledAt = clock.now();
  user.totpLastStep = step;
  user.totpRecoveryHashes = recoveryHashes(recoveryCodes);
  await fork.flush();
  return { enabled: true as const, recoveryCodes };
}

/**
 * The two-step change's notice to the account's address. The change is made by then: a mail
 * that cannot be queued is logged, not answered as a failure (new recovery codes would otherwise
 * be stored and never shown, review 5).
 */
async function tellTheAddress(
  deps: AccountDeps,
  session: ActiveSession,
  change: Parameters<typeof twoStepChangedMail>[0]['change'],
): Promise<void> {
  try {
    if (!(await mayNotify(deps.em, { to: session.email, verified: session.emailVerified }))) return;
    await deps.mail.queue(
      'two-step-changed',
      twoStepChangedMail({ to: session.email, organizationName: session.organization.name, change }),
    );
  } catch (error) {
    deps.log.error({ err: error, change }, 'two-step notice not queued');
  }
}

/**
 * "Verify" from Settings: two-step on, and a mail to the account's address. Set-up needs only a
 * signed-in session, so a member whose session was taken learns at once that someone else's app
 * now holds their second factor (review 5).
 */
export async function turnOnTwoStep(deps: AccountDeps, session: ActiveSession, code: string) {
  const enabled = await confirmTwoStep(deps.em, session.userId, code, deps.clock);
  await tellTheAddress(deps, session, 'turned-on');
  return enabled;
}

/** Whether the user has two-step on, whether the organization requires it, codes left. */
export async function twoStepStatus(em: EntityManager, userId: string) {
  const fork = em.fork();
  const user = await fork.findOneOrFail(DashboardUser, { id: userId });
  const organization = await fork.findOneOrFail(Organization, { id: user.organization });
  return {
    enabled: user.totpEnabledAt != null,
    requiredByOrganization: organization.requireTwoStep,
    recoveryCodesLeft: user.totpEnabledAt ? (user.totpRecoveryHashes?.length ?? 0) : 0,
  };
}

/**
 * The sign-in's second step: a current TOTP code (not used before) or an unused recovery code.
 * Throws VALIDATION_FAILED on `code` otherwise. Both are spent by conditional UPDATEs, so two
 * requests racing with one code end with one success.
 */
export async function spendTwoStepCode(
  em: EntityManager,
  userId: string,
  code: string,
  clock: Clock,
): Promise<{ with: 'app' | 'recovery-code' }> {
  const fork = em.fork();
  const user = await fork.findOneOrFail(DashboardUser, { id: userId });
  if (!user.totpSecret) throw wrongCode();
  const step = await matchedStep(user.totpSecret, code, clock, user.totpLastStep ?? null);
  const connection = fork.getConnection();
  if (step !== undefined) {
    const updated = await connection.execute(
      `update dashboard_user set totp_last_step = ? where id = ? and (totp_last_step is null or totp_last_step < ?) returning id`,
      [step, userId, step],
    );
    if (updated.length === 1) return { with: 'app' };
    throw wrongCode();
  }
  const hash = sha256(recoveryKey(code));
  const spent = await connection.execute(
    `update dashboard_user set totp_recovery_hashes = totp_recovery_hashes - ?::text
      where id = ? and jsonb_exists(totp_recovery_hashes, ?::text) returning id`,
    [hash, userId, hash],
  );
  if (spent.length === 1) return { with: 'recovery-code' };
  throw wrongCode();
}

/**
 * An organization's rule that every member signs in with two-step verification. Only a member
 * who uses it may turn it on (else they would lock themselves out of everything but Settings).
 */
export async function setTwoStepRequired(
  em: EntityManager,
  session: { userId: string; organizationId: string },
  required: boolean,
) {
  const fork = em.fork();
  const user = await fork.findOneOrFail(DashboardUser, { id: session.userId });
  const ownFirst = () =>
    new AppError('FORBIDDEN', 'Turn on two-step verification for your own account first');
  if (required && !user.totpEnabledAt) throw ownFirst();
  if (!required) {
    await fork.nativeUpdate(Organization, { id: session.organizationId }, { requireTwoStep: false });
    return twoStepStatus(em, session.userId);
  }
  // Read again under locks, the organization's row first and then the owner's (the order
  // turnOffTwoStep's UPDATE takes them in, so the two cannot deadlock): an owner's own turn-off
  // still uncommitted in another tab is waited for and then seen, and the rule is never set for
  // an owner without two-step (the read above sees only what was committed; review 5).
  await fork.transactional(async (tx) => {
    await tx.execute('select id from organization where id = ? for update', [session.organizationId]);
    const [owner] = await tx.execute<{ on: boolean }[]>(
      'select totp_enabled_at is not null as "on" from dashboard_user where id = ? for share',
      [session.userId],
    );
    if (!owner?.on) throw ownFirst();
    await tx.execute('update organization set require_two_step = true where id = ?', [
      session.organizationId,
    ]);
  });
  return twoStepStatus(em, session.userId);
}

const notOn = () => new AppError('FORBIDDEN', 'Two-step verification is not on for this account');
const requiredByOrganization = () =>
  new AppError(
    'TWO_STEP_REQUIRED_BY_ORGANIZATION',
    'Your organization requires two-step verification for every member: it cannot be turned off. An owner can stop requiring it first.',
  );

/**
 * Both changes below prove both factors again: the current password (throttled like every
 * re-authentication, VALIDATION_FAILED on `password`), then a current code from the app or a
 * recovery code (spent by `spendTwoStepCode`: a TOTP code is not accepted twice, a recovery code
 * is gone; VALIDATION_FAILED on `code`). A wrong one changes nothing. The password is checked
 * first, so a wrong password never spends a code.
 */
async function reauthenticateBoth(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  input: { password: string; code: string },
) {
  await reauthenticate(deps, client, session, input.password, 'password');
  // The code counts where sign-in's code step counts: one budget of guesses, not two.
  await throttleAccountAttempt(deps.em, client, session.email, 'two-step');
  await spendTwoStepCode(deps.em, session.userId, input.code, deps.clock);
}

/**
 * "New recovery codes": ten new codes replace every old one in one UPDATE (an old code stops
 * working at once), shown once like the first set; the address is told.
 */
export async function regenerateRecoveryCodes(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  input: { password: string; code: string },
) {
  if (!(await twoStepStatus(deps.em, session.userId)).enabled) throw notOn();
  await reauthenticateBoth(deps, client, session, input);
  const recoveryCodes = newRecoveryCodes();
  const replaced = await deps.em
    .fork()
    .getConnection()
    .execute(
      `update dashboard_user set totp_recovery_hashes = ?::jsonb
        where id = ? and totp_enabled_at is not null returning id`,
      [JSON.stringify(recoveryHashes(recoveryCodes)), session.userId],
    );
  // Turned off by another of the user's sessions meanwhile: these codes would open nothing.
  if (replaced.length !== 1) throw notOn();
  await tellTheAddress(deps, session, 'new-recovery-codes');
  return { recoveryCodes };
}

/**
 * "Turn off": the secret, its replay step and the recovery codes are forgotten, so sign-in asks
 * only for the password and a later set-up starts from a new secret. Refused while the
 * organization requires two-step of every member; the rule is checked again in the UPDATE
 * itself, so an owner requiring it at the same moment cannot be raced past. The user's other
 * sessions end, as after a password change: set-up asks for no password, so a session stolen
 * earlier could otherwise turn two-step back on with the thief's app and keep the recovery codes,
 * locking the member out of every later sign-in (review 5; docs/decisions/045).
 */
export async function turnOffTwoStep(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  input: { password: string; code: string },
) {
  const state = await twoStepStatus(deps.em, session.userId);
  if (!state.enabled) throw notOn();
  if (state.requiredByOrganization) throw requiredByOrganization();
  await reauthenticateBoth(deps, client, session, input);
  // The rule is read `for share`: an owner's "Require" still uncommitted is waited for and then
  // seen. A plain read (`not exists`) takes the last committed value under read committed, and
  // both would commit: the member off, the organization requiring it (review 5).
  const cleared = await deps.em
    .fork()
    .getConnection()
    .execute(
      `update dashboard_user u set totp_secret = null, totp_pending_secret = null, totp_enabled_at = null,
          totp_last_step = null, totp_recovery_hashes = null
        where u.id = ? and u.totp_enabled_at is not null
          and not (select o.require_two_step from organization o where o.id = u.organization_id for share)
        returning u.id`,
      [session.userId],
    );
  if (cleared.length !== 1) {
    if ((await twoStepStatus(deps.em, session.userId)).requiredByOrganization) throw requiredByOrganization();
    throw notOn();
  }
  await endSessionsOf(deps.em, session.userId, session.id);
  await tellTheAddress(deps, session, 'turned-off');
  return { enabled: false as const };
}

/**
 * "Confirm it's you" before a sensitive change on a session signed in a while ago (team changes,
 * issue 31 item 6): the password, or a current two-step code for a member who uses two-step
 * (throttled where sign-in's code step is). The session counts as freshly signed in from now.
 */
export async function confirmIdentity(
  deps: AccountDeps,
  client: AccountClient,
  session: ActiveSession,
  input: { password: string } | { code: string },
) {
  if ('password' in input) {
    await reauthenticate(deps, client, session, input.password, 'password');
  } else {
    // A factor set up after this session last proved itself cannot vouch for it: a stolen
    // session could set up its own authenticator and then "confirm" with it (review of issue 31).
    const user = await deps.em.fork().findOne(DashboardUser, { id: session.userId });
    if (!user?.totpEnabledAt || user.totpEnabledAt.getTime() > session.authenticatedAt.getTime()) {
      throw validationFailed([
        {
          field: 'code',
          message: 'cannot confirm this session: two-step was set up after you signed in; use your password',
        },
      ]);
    }
    await throttleAccountAttempt(deps.em, client, session.email, 'two-step');
    await spendTwoStepCode(deps.em, session.userId, input.code, deps.clock);
  }
  const now = deps.clock.now();
  await deps.em.fork().nativeUpdate(DashboardSession, { id: session.id }, { authenticatedAt: now });
  return { confirmedAt: now.toISOString() };
}
