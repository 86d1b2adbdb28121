import { AppError } from '@pis/shared';
import type { RateLimitConfig } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import { consumeRateLimit, type RateLimitResult } from './rate-limit-store.ts';

/** The budgets the service enforces; each names a key space in the store. */
/**
 * `bank-notifications`: refused notifications per sending address, with the page budget's size but
 * counted apart, so a bank's (or a forger's) refusals never spend the budget of customers behind
 * the same address, nor theirs its.
 */
export type RateLimitBudget = 'api-read' | 'api-write' | 'pages' | 'dashboard' | 'bank-notifications';

const LIMIT_OF: Record<RateLimitBudget, (config: RateLimitConfig) => number> = {
  'api-read': (config) => config.apiReads,
  'api-write': (config) => config.apiWrites,
  pages: (config) => config.pages,
  dashboard: (config) => config.dashboard,
  'bank-notifications': (config) => config.pages,
};

const WHAT: Record<RateLimitBudget, string> = {
  'api-read': "read requests for this API key's organization",
  'api-write': "write requests for this API key's organization",
  pages: 'requests from this address',
  dashboard: 'dashboard requests for this organization',
  'bank-notifications': 'refused notifications from this address',
};

export type SetHeader = (name: string, value: string) => void;

/**
 * Counts one request against `budget` for `subject` (an organization id, a client address) and
 * answers with the IETF draft's headers (draft-ietf-httpapi-ratelimit-headers-06 fields:
 * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` in seconds, and
 * `RateLimit-Policy: <limit>;w=<window>`), the form most clients and proxies read today.
 * Over the limit: 429 `RATE_LIMITED` with `Retry-After`. Off (`RATE_LIMITS=off`): no query, no headers.
 */
export async function enforceRateLimit(
  em: EntityManager,
  config: RateLimitConfig,
  setHeader: SetHeader,
  budget: RateLimitBudget,
  subject: string,
): Promise<void> {
  if (!config.enabled) return;
  const limit = LIMIT_OF[budget](config);
  const result = await consumeRateLimit(em, {
    key: rateLimitKey(budget, subject),
    limit,
    windowSeconds: config.windowSeconds,
  });
  answerRateLimit(config, setHeader, budget, result);
}

/** The store's key for `subject`'s requests against `budget`. */
export const rateLimitKey = (budget: RateLimitBudget, subject: string) => `${budget}:${subject}`;

export const rateLimitOf = (config: RateLimitConfig, budget: RateLimitBudget) => LIMIT_OF[budget](config);

/** The headers for a counted request, and 429 over the limit (see enforceRateLimit). */
export function answerRateLimit(
  config: RateLimitConfig,
  setHeader: SetHeader,
  budget: RateLimitBudget,
  result: RateLimitResult,
): void {
  const { limit } = result;
  setHeader('ratelimit-limit', String(limit));
  setHeader('ratelimit-remaining', String(result.remaining));
  setHeader('ratelimit-reset', String(result.resetSeconds));
  setHeader('ratelimit-policy', `${limit};w=${config.windowSeconds}`);
  if (!result.allowed) {
    setHeader('retry-after', String(result.resetSeconds));
    throw new AppError(
      'RATE_LIMITED',
      `Rate limit exceeded: at most ${limit} ${WHAT[budget]} per ${config.windowSeconds} s; retry after ${result.resetSeconds} s`,
    );
  }
}
