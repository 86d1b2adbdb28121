import { createHash, randomBytes } from 'node:crypto';
import { AppError, validationFailed } from '@pis/shared';
import { generateSecret, generateURI, verify } from 'otplib';
import type { Clock } from '../clock.ts';
import { DashboardUser, Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

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
  const recoveryCodes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
  user.totpSecret = user.totpPendingSecret;
  user.totpPendingSecret = null;
  user.totpEnabledAt = clock.now();
  user.totpLastStep = step;
  user.totpRecoveryHashes = recoveryCodes.map((recovery) => sha256(recoveryKey(recovery)));
  await fork.flush();
  return { enabled: true as const, recoveryCodes };
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
  if (required && !user.totpEnabledAt) {
    throw new AppError('FORBIDDEN', 'Turn on two-step verification for your own account first');
  }
  await fork.nativeUpdate(Organization, { id: session.organizationId }, { requireTwoStep: required });
  return twoStepStatus(em, session.userId);
}
