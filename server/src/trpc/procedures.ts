import { unusableInputDetails, validationFailed } from '@pis/shared';
import { authenticateApiKey, type Permission } from '../auth/authenticate-api-key.ts';
import { budgetOf } from '../rate-limits/organization-budgets.ts';
import { rateLimitResult } from '../rate-limits/rate-limit-store.ts';
import { answerRateLimit, enforceRateLimit, rateLimitKey } from '../rate-limits/rate-limits.ts';
import { middleware, publicProcedure } from './trpc.ts';

/**
 * NUL characters and unpaired surrogates in any input value (body, query or path) are refused
 * as VALIDATION_FAILED before any schema or query sees them: Postgres cannot store them. Also
 * used by the dashboard's procedures.
 */
export const storableInput = middleware(async ({ getRawInput, next }) => {
  await refuseUnstorableInput(getRawInput);
  return next();
});

async function refuseUnstorableInput(getRawInput: () => Promise<unknown>): Promise<void> {
  const details = unusableInputDetails(await getRawInput());
  if (details.length > 0) throw validationFailed(details);
}

/**
 * The customer pages' procedures: the link token in the input is their only credential, so
 * they are limited per client address (before the input is walked).
 */
export const pageProcedure = publicProcedure
  .use(async ({ ctx, next }) => {
    await enforceRateLimit(ctx.em, ctx.config.rateLimits, ctx.setHeader, 'pages', ctx.clientAddress());
    return next();
  })
  .use(storableInput);

/**
 * The procedure builders for the merchant API: every procedure behind an API key starts from
 * `readProcedure` or `writeProcedure`. The key is checked before the input is parsed, so an
 * unauthenticated caller learns nothing from validation errors.
 * Context gains `organizationId`, `approvedProviders` (always with `mock`) and `apiKeyId`, and
 * `preloaded` for a procedure whose meta has a `preload` (see KeyPreload).
 *
 * Key, permission and storable input in one middleware, in that order: every tRPC middleware
 * level copies the whole context (and these run on every merchant call).
 */
const withPermission = (permission: Permission) =>
  publicProcedure.use(async ({ ctx, meta, getRawInput, next }) => {
    const limits = ctx.config.rateLimits;
    // Reads and writes have budgets of their own (Stripe-style), the organization's across its
    // keys, counted once the key is proven, in the key lookup's own round trip.
    const budget = permission === 'read' ? 'api-read' : 'api-write';
    const { caller, preloaded, counted } = await authenticateApiKey(
      ctx.em,
      ctx.apiKeyHeader,
      ctx.clock,
      permission,
      {
        preload: meta?.preload?.(await getRawInput()),
        count: limits.enabled
          ? { key: rateLimitKey(budget, ''), windowSeconds: limits.windowSeconds }
          : undefined,
        logger: ctx.log,
        cache: ctx.services.apiKeyCache,
        onKeyFound: ctx.noteKeyOwner,
      },
    );
    if (counted) {
      const limit = budgetOf(limits, caller.budgets, budget);
      answerRateLimit(limits, ctx.setHeader, budget, rateLimitResult(limit, counted));
    }
    await refuseUnstorableInput(getRawInput);
    return next({
      ctx: {
        caller,
        organizationId: caller.organizationId,
        approvedProviders: caller.approvedProviders,
        apiKeyId: caller.apiKeyId,
        preloaded,
      },
    });
  });

export const readProcedure = withPermission('read');
export const writeProcedure = withPermission('write');
