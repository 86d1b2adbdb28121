import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { ACCOUNT_TOKEN_PURPOSES } from '../db/entities/account-token.entity.ts';
import { AccountToken } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

export type AccountTokenPurpose = (typeof ACCOUNT_TOKEN_PURPOSES)[number];

export const TOKEN_LIFETIME_MS: Record<AccountTokenPurpose, number> = {
  'verify-email': 24 * 60 * 60_000,
  'password-reset': 30 * 60_000,
  // The sign-in's second step: long enough to open an authenticator app.
  'two-step': 5 * 60_000,
};

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const idOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * A new single-use token for a mailed link: 256 random bits; only its SHA-256 is stored, so
 * the table opens nothing. Earlier unused tokens of the same purpose for the user are spent:
 * only the newest link works.
 */
export async function issueAccountToken(
  em: EntityManager,
  input: { userId: string; purpose: AccountTokenPurpose; email: string },
  clock: Clock,
): Promise<string> {
  const now = clock.now();
  const token = randomBytes(32).toString('base64url');
  await spendOpenAccountTokens(em, input.userId, input.purpose, now);
  await em.insert(AccountToken, {
    id: idOf(token),
    user: input.userId,
    purpose: input.purpose,
    email: input.email,
    createdAt: now,
    expiresAt: new Date(now.getTime() + TOKEN_LIFETIME_MS[input.purpose]),
    usedAt: null,
  });
  return token;
}

/**
 * Every unused link of a purpose for the user stops working: a newer one was issued, or what it
 * would act on changed (a reset link dies with a new password or email, or sign-out everywhere).
 */
export async function spendOpenAccountTokens(
  em: EntityManager,
  userId: string,
  purpose: AccountTokenPurpose,
  now: Date,
): Promise<void> {
  await em.nativeUpdate(AccountToken, { user: userId, purpose, usedAt: null }, { usedAt: now });
}

export const linkInvalid = () =>
  new AppError('LINK_INVALID', 'This link is not valid or was already used: ask for a new one.');
const linkExpired = () => new AppError('LINK_EXPIRED', 'This link has expired: ask for a new one.');

/**
 * Spends a token (in the caller's transaction): tampered, unknown, already used or of another
 * purpose is LINK_INVALID, past its time LINK_EXPIRED. The conditional UPDATE makes two racing
 * uses end with one success.
 */
export async function spendAccountToken(
  em: EntityManager,
  token: string,
  purpose: AccountTokenPurpose,
  clock: Clock,
): Promise<{ userId: string; email: string }> {
  const row = await readAccountToken(em, token, purpose, clock);
  const id = row.id;
  const now = clock.now();
  const spent = await em.nativeUpdate(AccountToken, { id, usedAt: null }, { usedAt: now });
  if (spent !== 1) throw linkInvalid();
  return { userId: row.user, email: row.email };
}

/** The same checks without spending: for a form that may still refuse its input (a weak password). */
export async function readAccountToken(
  em: EntityManager,
  token: string,
  purpose: AccountTokenPurpose,
  clock: Clock,
) {
  if (!TOKEN_FORMAT.test(token)) throw linkInvalid();
  const row = await em.findOne(AccountToken, { id: idOf(token), purpose });
  if (!row || row.usedAt) throw linkInvalid();
  if (row.expiresAt.getTime() <= clock.now().getTime()) throw linkExpired();
  return row;
}
