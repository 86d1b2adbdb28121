import { ApiKeyIdInput, ApiKeyList, CreateApiKeyInput, CreatedApiKey } from '@pis/shared';
import { z } from 'zod';
import { createApiKey, futureExpiry, listApiKeys, permissionsFrom, revokeApiKey } from '../auth/api-keys.ts';
import { audited } from '../observability/audit-log.ts';
import { assertMayHoldLiveKey } from '../organizations/live-keys.ts';
import { sessionMutation, sessionQuery, withRecentSignIn } from '../trpc/dashboard-procedures.ts';
import { router } from '../trpc/trpc.ts';

/** The API keys page: the same key functions as the operator CLI, scoped to the user's organization. */
export const apiKeysRouter = router({
  list: sessionQuery
    .input(z.void())
    .output(ApiKeyList)
    .query(async ({ ctx }) => ({
      apiKeys: await listApiKeys(ctx.em, ctx.caller.organizationId, ctx.clock.now()),
    })),

  // A key outlives every session: the one making it must have signed in recently. Its mode is
  // the session's (Live data makes live keys, issue 34 item 9), under the CLI's own rule.
  create: withRecentSignIn(sessionMutation)
    .input(CreateApiKeyInput)
    .output(CreatedApiKey)
    .mutation(async ({ ctx, input }) => {
      const mode = ctx.session.mode;
      if (mode === 'live') await assertMayHoldLiveKey(ctx.em, ctx.caller.organizationId);
      const created = await audited(
        ctx,
        (made) => ({
          action: 'api_key.created',
          target: made.entry.id,
          details: { name: input.name, permissions: input.permissions, mode },
        }),
        () =>
          createApiKey(
            ctx.em,
            {
              organizationId: ctx.caller.organizationId,
              name: input.name,
              permissions: permissionsFrom(input.permissions),
              expiresAt: futureExpiry(input.expiresAt, ctx.clock),
              mode,
            },
            ctx.clock,
          ),
      );
      return { apiKey: created.entry, secret: created.apiKey };
    }),

  revoke: sessionMutation
    .input(ApiKeyIdInput)
    .output(z.object({ apiKey: CreatedApiKey.shape.apiKey }))
    .mutation(async ({ ctx, input }) => {
      const revoked = await audited(ctx, { action: 'api_key.revoked', target: input.apiKeyId }, () =>
        revokeApiKey(ctx.em, { apiKeyId: input.apiKeyId }, ctx.clock, ctx.caller.organizationId),
      );
      // This process refuses the key from the next request on; the others when they hear the
      // commit's notification (auth/api-key-cache.ts).
      ctx.services.apiKeyCache.dropOrganization(ctx.caller.organizationId);
      return { apiKey: revoked.entry };
    }),
});
