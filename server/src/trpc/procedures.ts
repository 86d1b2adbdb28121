import { unstorableTextDetails, validationFailed } from '@pis/shared';
import { authenticateApiKey, type Permission, requirePermission } from '../auth/authenticate-api-key.ts';
import { middleware, publicProcedure } from './trpc.ts';

/**
 * NUL characters and unpaired surrogates in any input value (body, query or path) are refused
 * as VALIDATION_FAILED before any schema or query sees them: Postgres cannot store them.
 */
const storableInput = middleware(async ({ getRawInput, next }) => {
  const details = unstorableTextDetails(await getRawInput());
  if (details.length > 0) throw validationFailed(details);
  return next();
});

/** The customer pages' procedures: the link token in the input is their only credential. */
export const pageProcedure = publicProcedure.use(storableInput);

/**
 * The procedure builders for the merchant API: every procedure behind an API key starts from
 * `readProcedure` or `writeProcedure`. The key is checked before the input is parsed, so an
 * unauthenticated caller learns nothing from validation errors.
 * Context gains `organizationId`, `approvedProviders` (always with `mock`) and `apiKeyId`.
 */
const authenticatedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  const caller = await authenticateApiKey(ctx.em, ctx.apiKeyHeader, ctx.clock);
  return next({
    ctx: {
      caller,
      organizationId: caller.organizationId,
      approvedProviders: caller.approvedProviders,
      apiKeyId: caller.apiKeyId,
    },
  });
});

const withPermission = (permission: Permission) =>
  authenticatedProcedure
    .use(({ ctx, next }) => {
      requirePermission(ctx.caller, permission);
      return next();
    })
    .use(storableInput);

export const readProcedure = withPermission('read');
export const writeProcedure = withPermission('write');
