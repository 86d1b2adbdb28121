import { ReturnOriginSettings, SetReturnOriginsInput } from '@pis/shared';
import { z } from 'zod';
import { audited } from '../observability/audit-log.ts';
import { BrandInput, BrandSettings, brandSettings, setBrand } from '../organizations/brand.ts';
import { allowedReturnOrigins, setAllowedReturnOrigins } from '../organizations/return-origins.ts';
import { router } from '../trpc/trpc.ts';
import { sessionMutation, sessionQuery } from './dashboard-procedures.ts';

/**
 * The settings page: the organization's allowed return origins, through the same domain
 * functions as the operator CLI (`org:set-return-origins`), scoped to the user's organization.
 */
export const settingsRouter = router({
  returnOrigins: sessionQuery
    .input(z.void())
    .output(ReturnOriginSettings)
    .query(async ({ ctx }) => ({
      allowedReturnOrigins: await allowedReturnOrigins(ctx.em, ctx.caller.organizationId),
    })),

  setReturnOrigins: sessionMutation
    .input(SetReturnOriginsInput)
    .output(ReturnOriginSettings)
    .mutation(async ({ ctx, input }) => {
      const stored = await audited(
        ctx,
        { action: 'settings.changed', target: 'allowedReturnOrigins', details: { origins: input.origins } },
        () => setAllowedReturnOrigins(ctx.em, ctx.caller.organizationId, input.origins),
      );
      return { allowedReturnOrigins: stored.allowedReturnOrigins };
    }),

  /** Settings > Brand: shown on the customer pages once an operator verified the organization. */
  brand: sessionQuery
    .input(z.void())
    .output(BrandSettings)
    .query(({ ctx }) => brandSettings(ctx.em, ctx.caller.organizationId)),

  setBrand: sessionMutation
    .input(BrandInput)
    .output(BrandSettings)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        {
          action: 'settings.changed',
          target: 'brand',
          details: {
            displayName: input.displayName,
            accentColor: input.accentColor,
            logo: input.logo === undefined ? 'kept' : input.logo === null ? 'removed' : 'replaced',
          },
        },
        () => setBrand(ctx.em, ctx.caller.organizationId, input, ctx.clock),
      ),
    ),
});
