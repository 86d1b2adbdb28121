import { z } from 'zod';
import { sessionQuery } from '../trpc/dashboard-procedures.ts';
import { router } from '../trpc/trpc.ts';
import {
  AuditLogPage,
  AuditLogQuery,
  listAuditLog,
  RequestLogDetail,
  RequestLogPage,
  RequestLogQuery,
  requestLogDetail,
  searchRequestLog,
} from './logs.ts';

/**
 * The dashboard's request log and audit log (dashboard.logs.*): signed-in reads scoped to the
 * user's organization. There is no procedure that changes either log.
 */
export const logsRouter = router({
  requests: sessionQuery
    .input(RequestLogQuery.optional())
    .output(RequestLogPage)
    .query(({ ctx, input }) => searchRequestLog(ctx.em, ctx.caller.organizationId, input ?? {})),

  request: sessionQuery
    .input(z.strictObject({ id: z.string().min(1).max(20) }))
    .output(RequestLogDetail)
    .query(({ ctx, input }) => requestLogDetail(ctx.em, ctx.caller.organizationId, input.id)),

  audit: sessionQuery
    .input(AuditLogQuery.optional())
    .output(AuditLogPage)
    .query(({ ctx, input }) => listAuditLog(ctx.em, ctx.caller.organizationId, input ?? {})),
});
