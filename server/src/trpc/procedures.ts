import { authenticateApiKey, type Permission, requirePermission } from '../auth/authenticate-api-key.ts';
import { publicProcedure } from './trpc.ts';

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
  authenticatedProcedure.use(({ ctx, next }) => {
    requirePermission(ctx.caller, permission);
    return next();
  });

export const readProcedure = withPermission('read');
export const writeProcedure = withPermission('write');
