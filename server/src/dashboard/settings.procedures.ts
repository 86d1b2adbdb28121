import {
  OrganizationBudgets,
  ReturnOriginSettings,
  SavedPayee,
  SavedPayeeIdInput,
  SavedPayeeList,
  SavePayeeInput,
  SetReturnOriginsInput,
} from '@pis/shared';
import { z } from 'zod';
import { audited } from '../observability/audit-log.ts';
import { BrandInput, BrandSettings, brandSettings, setBrand } from '../organizations/brand.ts';
import { allowedReturnOrigins, setAllowedReturnOrigins } from '../organizations/return-origins.ts';
import { listSavedPayees, removeSavedPayee, savePayee } from '../organizations/saved-payees.ts';
import { sessionMutation, sessionQuery, withRecentSignIn } from '../trpc/dashboard-procedures.ts';
import { router } from '../trpc/trpc.ts';
import { organizationBudgets } from './organization-budgets.ts';

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
      // The cached API keys carry the origins: this process obeys the new list from the next
      // create on, the others when they hear the commit's notification (auth/api-key-cache.ts).
      ctx.services.apiKeyCache.dropOrganization(ctx.caller.organizationId);
      return { allowedReturnOrigins: stored.allowedReturnOrigins };
    }),

  /** Settings > Brand: shown on the customer pages once an operator verified the organization. */
  brand: sessionQuery
    .input(z.void())
    .output(BrandSettings)
    .query(({ ctx }) => brandSettings(ctx.em, ctx.caller.organizationId)),

  // The brand customers see once verified: a stolen session must not re-dress a verified page.
  setBrand: withRecentSignIn(sessionMutation)
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

  /** Saved payee accounts (the merchant's own), chosen in New payment (issue 34 item 10). */
  payees: sessionQuery
    .input(z.void())
    .output(SavedPayeeList)
    .query(async ({ ctx }) => ({ payees: await listSavedPayees(ctx.em, ctx.caller.organizationId) })),

  savePayee: sessionMutation
    .input(SavePayeeInput)
    .output(SavedPayee)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        (saved) => ({ action: 'settings.changed', target: 'savedPayees', details: { added: saved.id } }),
        () => savePayee(ctx.em, ctx.caller.organizationId, input, ctx.clock),
      ),
    ),

  removePayee: sessionMutation
    .input(SavedPayeeIdInput)
    .output(z.object({ removed: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      await audited(
        ctx,
        { action: 'settings.changed', target: 'savedPayees', details: { removed: input.payeeId } },
        () => removeSavedPayee(ctx.em, ctx.caller.organizationId, input.payeeId),
      );
      return { removed: true as const };
    }),

  /** The organization's API budgets and the current window's use (issue 34 item 12). */
  budgets: sessionQuery
    .input(z.void())
    .output(OrganizationBudgets)
    .query(({ ctx }) =>
      organizationBudgets(ctx.em, ctx.config.rateLimits, ctx.caller.organizationId, ctx.session.budgets),
    ),
});
