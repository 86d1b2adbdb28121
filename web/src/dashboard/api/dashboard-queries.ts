import { QueryClient, queryOptions } from '@tanstack/react-query';
import { dashboardApi, type OverviewDays, type PaymentListQuery } from './dashboard-api.ts';
import { toDashboardError } from './dashboard-error.ts';

/**
 * The dashboard's reads as TanStack Query options: a cache per procedure and input (a page
 * shows what it had at once and refreshes behind it), abort when a page or filter changes,
 * retry of failures that can pass, and a refetch when the merchant comes back to the tab.
 * Keyed by the procedure's path and input, as @trpc/tanstack-react-query keys them
 * (docs/decisions/052-console-data-loading.md says why that package is not used yet).
 */
export const dashboardQueries = {
  overview: (days: OverviewDays) =>
    queryOptions({
      queryKey: ['dashboard.overview', { days }],
      queryFn: ({ signal }) => dashboardApi.overview(days, signal),
    }),
  quickStart: () =>
    queryOptions({
      queryKey: ['dashboard.quickStart'],
      queryFn: ({ signal }) => dashboardApi.quickStart(signal),
    }),
  apiKeys: () =>
    queryOptions({
      queryKey: ['dashboard.apiKeys.list'],
      queryFn: ({ signal }) => dashboardApi.apiKeys(signal),
    }),
  newPaymentOptions: () =>
    queryOptions({
      queryKey: ['dashboard.payments.options'],
      queryFn: ({ signal }) => dashboardApi.newPaymentOptions(signal),
    }),
  payees: () =>
    queryOptions({
      queryKey: ['dashboard.settings.payees'],
      queryFn: ({ signal }) => dashboardApi.payees(signal),
    }),
  budgets: () =>
    queryOptions({
      queryKey: ['dashboard.settings.budgets'],
      queryFn: ({ signal }) => dashboardApi.budgets(signal),
    }),
  payments: (query: PaymentListQuery) =>
    queryOptions({
      queryKey: ['dashboard.payments.list', query],
      queryFn: ({ signal }) => dashboardApi.payments(query, signal),
    }),
};

/** Failures that another try may cure: the network, a busy server, a rate limit. */
const RETRYABLE = new Set(['UNREACHABLE', 'UNEXPECTED', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED']);
const MAX_RETRIES = 2;

/** One per dashboard mount, so a signed-out visitor's data never serves the next session. */
export const createDashboardQueryClient = () =>
  new QueryClient({
    defaultOptions: {
      queries: {
        retry: (failures, error) => failures < MAX_RETRIES && RETRYABLE.has(toDashboardError(error).kind),
        retryDelay: (attempt) => Math.min(500 * 2 ** attempt, 4000),
        refetchOnWindowFocus: true,
        // Shown from the cache at once, and read again whenever a page mounts.
        staleTime: 0,
      },
      // A state-changing call is never repeated behind the merchant's back.
      mutations: { retry: false },
    },
  });
