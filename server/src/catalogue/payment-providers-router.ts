import { ProvidersList, paymentProviders } from '@pis/shared';
import { readProcedure, router } from '../trpc/trpc.ts';
import { errorResponses } from './openapi-errors.ts';

/**
 * `GET /payments/providers`: `mock` plus the approved providers the service can serve. An
 * approved provider without an adapter/credentials is left out here (creating a payment with
 * it answers 503 PROVIDER_NOT_CONFIGURED).
 */
export const paymentProvidersRouter = router({
  list: readProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/payments/providers',
        tags: ['Payments'],
        summary: 'Providers the organization can pay with',
        description: '`mock`, plus the approved providers this service has credentials for.',
      },
      errors: errorResponses(401, 403),
    })
    .output(ProvidersList)
    .query(({ ctx }) => {
      const configured = new Set(ctx.services.configuredProviders);
      return { providers: paymentProviders(ctx.approvedProviders.filter((code) => configured.has(code))) };
    }),
});
