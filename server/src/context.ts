import type { FastifyReply, FastifyRequest } from 'fastify';
import { dashboardHttp } from './http/dashboard-http.ts';
import { liveReadRequest } from './http/live-read.ts';
import type { Logger } from './logger.ts';
import { noteRequestKeyOwner } from './observability/request-log.ts';
import { requestContext } from './observability/tracing.ts';
import { rateLimitClient } from './rate-limits/client-address.ts';
import type { AppServices, Context } from './trpc/trpc.ts';

/** A request's Context (its shape is in trpc/trpc.ts, beside the procedures that read it). */
export function createContextFactory(services: AppServices) {
  return ({ req, res }: { req: FastifyRequest; res: FastifyReply }): Context => ({
    services,
    em: services.orm.em.fork(),
    clock: services.clock,
    config: services.config,
    log: req.log as Logger,
    apiKeyHeader: req.headers['x-api-key'],
    idempotencyKeyHeader: req.headers['idempotency-key'],
    clientAddress: () => rateLimitClient(req.ip),
    noteKeyOwner: (organizationId) => noteRequestKeyOwner(req, organizationId),
    setHeader: (name, value) => {
      res.header(name, value);
    },
    dashboard: dashboardHttp(req, res),
    liveRead: (asked) => liveReadRequest(req, res, services.config.timeouts.connectionMs, asked),
    requestId: req.id,
    traceParent: () => requestContext(req),
  });
}
