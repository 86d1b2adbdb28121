import { AppError } from '@pis/shared';
import type { EntityManager } from '../db/orm.ts';
import { consumeRateLimit } from '../rate-limits/rate-limit-store.ts';
import type { SetHeader } from '../rate-limits/rate-limits.ts';

/** Who is trying, as the request context knows it. */
export interface AccountClient {
  clientAddress(): string;
  setHeader: SetHeader;
}

/**
 * Password guessing is throttled per client address (one machine trying many accounts, and
 * sign-up spam) and per email (many machines trying one account), in the shared Postgres store
 * so every instance counts together. Every attempt counts, right or wrong: counting only
 * failures would need a second write and tells an attacker when a guess was right.
 * Fixed 15-minute windows (the store's); the per-email budget lets a person mistype a few times.
 */
const WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_LIMITS = { perAddress: 30, perEmail: 10 } as const;

const tooManyAttempts = () =>
  new AppError('RATE_LIMITED', 'Too many sign-in attempts: wait a few minutes and try again');

export async function throttleAccountAttempt(
  em: EntityManager,
  client: AccountClient,
  emailKey: string | undefined,
): Promise<void> {
  const checks = [
    consumeRateLimit(em, {
      key: `dashboard-auth:address:${client.clientAddress()}`,
      limit: SIGN_IN_LIMITS.perAddress,
      windowSeconds: WINDOW_SECONDS,
    }),
  ];
  if (emailKey !== undefined) {
    checks.push(
      consumeRateLimit(em, {
        // Bounded (the store's keys are at most 200 characters; SignInInput allows 254).
        key: `dashboard-auth:email:${emailKey.slice(0, 160)}`,
        limit: SIGN_IN_LIMITS.perEmail,
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
