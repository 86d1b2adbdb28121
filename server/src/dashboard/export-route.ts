import { detailsFromZodError, ExportPaymentsQuery, validationFailed } from '@pis/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateSession } from '../accounts/sessions.ts';
import { exportPayments } from '../payments/export-payments.ts';
import { paymentsDeps } from '../payments/payments-deps.ts';
import type { Context } from '../trpc/context.ts';
import { admitDashboardCall } from '../trpc/dashboard-procedures.ts';

/** Where the dashboard's "Export CSV" link points (under /api so `npm run dev` forwards it). */
export const DASHBOARD_EXPORT_PATH = '/api/dashboard/payments/export';

/**
 * The dashboard's CSV export: GET /payments/export's filters, CSV and streaming
 * (payments/export-payments.ts), for the signed-in user's organization instead of an API key.
 *
 * A plain route, not a `dashboard.*` procedure: /trpc answers JSON only, and the file should be
 * a download the browser streams to disk (a link), not a body the page holds in memory. The
 * session cookie is SameSite=Lax and a GET changes nothing, so no CSRF header is asked (a link
 * cannot send one); another site can start the download but never read it.
 * Failures before the first byte are the usual envelope (root error handler).
 */
export function dashboardExportRoute(
  app: FastifyInstance,
  createContext: (options: { req: FastifyRequest; res: FastifyReply }) => Context,
): void {
  app.get(DASHBOARD_EXPORT_PATH, async (request, reply) => {
    const ctx = createContext({ req: request, res: reply });
    const session = await authenticateSession(ctx.em, ctx.dashboard, ctx.clock);
    // As every dashboard call (issue 31 item 7): two-step rule, the organization's budget.
    await admitDashboardCall(ctx, session);
    const parsed = ExportPaymentsQuery.safeParse(request.query);
    if (!parsed.success) throw validationFailed(detailsFromZodError(parsed.error));
    const caller = {
      organizationId: session.organization.id,
      approvedProviders: session.organization.approvedProviders,
      // The session's test/live switch.
      mode: session.mode,
    };
    const csv = await exportPayments(paymentsDeps(ctx), caller, parsed.data);
    return reply
      .code(200)
      .headers({ 'content-disposition': 'attachment; filename="payments.csv"', 'cache-control': 'no-store' })
      .header('content-type', 'text/csv; charset=utf-8')
      .send(csv);
  });
}
