import { banksRouter } from './catalogue/banks-router.ts';
import { paymentProvidersRouter } from './catalogue/payment-providers-router.ts';
import { dashboardRouter } from './dashboard/dashboard-router.ts';
import { pagesRouter } from './payments/routers/pages/pages-router.ts';
import { paymentsRouter } from './payments/routers/payments/payments-router.ts';
import { sandboxRouter } from './payments/routers/sandbox/sandbox-router.ts';
import { router } from './trpc/trpc.ts';

/**
 * Every procedure of the service. Served at /trpc, and at /api for those with `meta.openapi`
 * (http/rest-api.ts lets static paths win over `{param}` paths regardless of order here).
 * A new area is one import and one entry.
 */
export const appRouter = router({
  paymentProviders: paymentProvidersRouter,
  banks: banksRouter,
  payments: paymentsRouter,
  sandbox: sandboxRouter,
  pages: pagesRouter,
  dashboard: dashboardRouter,
});

export type AppRouter = typeof appRouter;
