import { unusableInputDetails, validationFailed } from '@pis/shared';
import { authenticateApiKey, type Permission, requirePermission } from '../auth/authenticate-api-key.ts';
import { enforceRateLimit } from '../rate-limits/rate-limits.ts';
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
    await enforceRateLimit(ctx.em, ctx.config.rateLimits, ctx.setHeader, 'pages', ctx.clientAddress);
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
    const preload = meta?.preload?.(await getRawInput());
    const { caller, preloaded } = await authenticateApiKey(
      ctx.em,
      ctx.apiKeyHeader,
      ctx.clock,
      preload,
      ctx.log,
    );
    requirePermission(caller, permission);
    // Reads and writes have budgets of their own (Stripe-style), counted after the key is proven.
    await enforceRateLimit(
      ctx.em,
      ctx.config.rateLimits,
      ctx.setHeader,
      permission === 'read' ? 'api-read' : 'api-write',
      caller.apiKeyId,
    );
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
