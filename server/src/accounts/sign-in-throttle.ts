import { AppError } from '@pis/shared';
import type { RateLimitConfig } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import { consumeRateLimit } from '../rate-limits/rate-limit-store.ts';
import type { SetHeader } from '../rate-limits/rate-limits.ts';

/** Who is trying, as the request context knows it, and the deployment's per-address limit. */
export interface AccountClient {
  clientAddress(): string;
  setHeader: SetHeader;
  config: { rateLimits: Pick<RateLimitConfig, 'signInsPerAddress'> };
}

/**
 * Password guessing is throttled per client address (one machine trying many accounts, and
 * sign-up spam) and per email *together with* the address (one machine trying one account), in
 * the shared Postgres store so every instance counts together. Not per email alone: then a
 * stranger could lock the real owner out by failing ten times (issue 24); this way the owner,
 * from their own address, always has their own budget. Many machines against one account get
 * 10 guesses each per window, against a password zxcvbn scored "safely unguessable".
 * Every attempt counts, right or wrong: counting only failures would need a second write and
 * tells an attacker when a guess was right. Fixed 15-minute windows (the store's).
 * The per-address count is the deployment's (`RATE_LIMIT_SIGN_INS`, 30): an office behind one
 * NAT address signs in more often than one person; the per-(email, address) count is fixed.
 */
const WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_LIMITS = { perEmailAndAddress: 10, twoStepCodesPerAccount: 30 } as const;

const tooManyAttempts = () =>
  new AppError('RATE_LIMITED', 'Too many sign-in attempts: wait a few minutes and try again');

export async function throttleAccountAttempt(
  em: EntityManager,
  client: AccountClient,
  emailKey: string | undefined,
  kind = 'auth',
): Promise<void> {
  const address = client.clientAddress();
  const checks = [
    consumeRateLimit(em, {
      key: `dashboard-${kind}:address:${address}`,
      limit: client.config.rateLimits.signInsPerAddress,
      windowSeconds: WINDOW_SECONDS,
    }),
  ];
  if (emailKey !== undefined) {
    checks.push(
      consumeRateLimit(em, {
        // Long keys (a 254-character email) are stored as their SHA-256 by the store.
        key: `dashboard-${kind}:email:${emailKey}:address:${address}`,
        limit: SIGN_IN_LIMITS.perEmailAndAddress,
        windowSeconds: WINDOW_SECONDS,
      }),
    );
  }
  if (emailKey !== undefined && kind === 'two-step') {
    // Codes also per account, from any address: a 6-digit code has about 3 right answers in a
    // million, and an attacker who has the password and many addresses would otherwise get 10
    // guesses at each (review 5). 30 a window: ~0.9% a day, where 100 addresses made it ~44%.
    checks.push(
      consumeRateLimit(em, {
        key: `dashboard-two-step:account:${emailKey}`,
        limit: SIGN_IN_LIMITS.twoStepCodesPerAccount,
        windowSeconds: WINDOW_SECONDS,
      }),
    );
  }
  const refused = (await Promise.all(checks)).filter((result) => !result.allowed);
  if (refused.length > 0) {
    client.setHeader('retry-after', String(Math.max(...refused.map((result) => result.resetSeconds))));
    throw tooManyAttempts();
  }
}

/** Sign-ups are counted per client address in windows of an hour. */
export const SIGN_UP_WINDOW_SECONDS = 60 * 60;

/**
 * Sign-ups per client address (`signUpsPerAddress` an hour; TRUST_PROXY makes the address the
 * client's, not the load balancer's). Every organization brings budgets of its own, so free
 * organizations made in bulk would multiply them (issue 24). Counted once the input is valid (a
 * mistyped form costs nothing), whether or not the address is taken. Off with RATE_LIMITS=off.
 */
export async function throttleSignUp(
  em: EntityManager,
  client: AccountClient,
  limits: RateLimitConfig,
): Promise<void> {
  if (!limits.enabled) return;
  const result = await consumeRateLimit(em, {
    key: `sign-up:address:${client.clientAddress()}`,
    limit: limits.signUpsPerAddress,
    windowSeconds: SIGN_UP_WINDOW_SECONDS,
  });
  if (result.allowed) return;
  client.setHeader('retry-after', String(result.resetSeconds));
  throw new AppError(
    'RATE_LIMITED',
    `Too many sign-ups from this address: at most ${limits.signUpsPerAddress} an hour; try again in ${Math.ceil(result.resetSeconds / 60)} minutes`,
  );
}
