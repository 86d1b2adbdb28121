import { Overview, OverviewInput, QuickStart } from '@pis/shared';
import { z } from 'zod';
import { listApiKeys } from '../auth/api-keys.ts';
import { paymentOverview } from '../payments/payment-overview.ts';
import { paymentsDeps } from '../payments/payments-deps.ts';
import { sessionQuery } from '../trpc/dashboard-procedures.ts';

/** The overview page: the organization, counts by status, and 7, 30 or 90 days of volume and outcomes. */
export const overviewProcedure = sessionQuery
  .input(OverviewInput)
  .output(Overview)
  .query(async ({ ctx, input }) => ({
    organization: ctx.session.organization,
    ...(await paymentOverview(paymentsDeps(ctx), ctx.caller, input.days)),
  }));

/** The developer quick start: the merchant's own values for the examples, never a whole key. */
export const quickStartProcedure = sessionQuery
  .input(z.void())
  .output(QuickStart)
  .query(async ({ ctx }) => {
    const now = ctx.clock.now();
    const keys = await listApiKeys(ctx.em, ctx.caller.organizationId, now);
    return {
      publicBaseUrl: ctx.config.publicBaseUrl,
      apiBaseUrl: `${ctx.config.publicBaseUrl}/api`,
      apiKeys: keys
        .filter((key) => key.state === 'active')
        .map(({ id, name, prefix, permissions }) => ({ id, name, prefix, permissions })),
      approvedProviders: ctx.session.organization.approvedProviders,
    };
  });
