import type { AppRouter } from '@pis/server/router';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { dashboardTrpc } from '../api/dashboard-client.ts';

/**
 * Settings > Brand's two calls, beside its component (dashboard-api.ts holds the rest; kept apart
 * while that file is busy with other work). Types from the server's router, type-only.
 */
export type BrandSettingsData = inferRouterOutputs<AppRouter>['dashboard']['settings']['brand'];
export type BrandInput = inferRouterInputs<AppRouter>['dashboard']['settings']['setBrand'];

export const brandApi = {
  brand: (signal?: AbortSignal) => dashboardTrpc.dashboard.settings.brand.query(undefined, { signal }),
  setBrand: (input: BrandInput) => dashboardTrpc.dashboard.settings.setBrand.mutate(input),
};
