import type { AppRouter } from '@pis/server/router';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { dashboardTrpc } from '../api/dashboard-client.ts';

type Outputs = inferRouterOutputs<AppRouter>['dashboard']['logs'];
type Inputs = inferRouterInputs<AppRouter>['dashboard']['logs'];

export type RequestLogQuery = NonNullable<Inputs['requests']>;
export type RequestLogPage = Outputs['requests'];
export type RequestLogDetail = Outputs['request'];
export type AuditLogPage = Outputs['audit'];

/** The request log and the audit log: reads only (nothing in the dashboard changes either). */
export const logsApi = {
  requests: (query: RequestLogQuery, signal?: AbortSignal) =>
    dashboardTrpc.dashboard.logs.requests.query(query, { signal }),
  request: (id: string, signal?: AbortSignal) =>
    dashboardTrpc.dashboard.logs.request.query({ id }, { signal }),
  audit: (before: string | undefined, signal?: AbortSignal) =>
    dashboardTrpc.dashboard.logs.audit.query(before ? { before } : {}, { signal }),
};
