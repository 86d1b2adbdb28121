import type { Context as OtelContext } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardHttp } from '../accounts/sessions.ts';
import type { ApiKeyCache } from '../auth/api-key-cache.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { EntityManager, Orm } from '../db/orm.ts';
import { dashboardHttp } from '../http/dashboard-http.ts';
import { type AskedWait, type LiveReadRequest, liveReadRequest } from '../http/live-read.ts';
import type { Logger } from '../logger.ts';
import type { MailOutbox } from '../mail/mail-message.ts';
import { noteRequestKeyOwner } from '../observability/request-log.ts';
import { requestContext } from '../observability/tracing.ts';
import type { PaymentScheduler } from '../payments/payment-scheduler.ts';
import type { PaymentWaiters } from '../payments/payment-waiters.ts';
import type { ProviderRegistry } from '../providers/provider-registry.ts';
import { plainClientAddress, rateLimitClient } from '../rate-limits/client-address.ts';

/**
 * What the app is built from. Tests pass their own clock and config; domain areas that need
 * more (job queue, provider registry, link signer) add a field here and in `buildApp`'s caller.
 */
export interface AppServices {
  config: Config;
  orm: Orm;
  clock: Clock;
  /**
   * Providers the service can actually serve (have an adapter and credentials). An approved
   * provider outside this list is "not configured". The payments area feeds this from its
   * provider registry; until then only `mock`.
   */
  configuredProviders: readonly string[];
  /** Payment provider adapters by code (the Mock bank by default). */
  providers: ProviderRegistry;
  /** Told after each commit when a payment next changes by itself (pg-boss in a full process). */
  scheduler: PaymentScheduler;
  /** Waiting reads of this process (payments/payment-waiters.ts); drained on close. */
  waiters: PaymentWaiters;
  /** API keys this process proved (auth/api-key-cache.ts); none held unless it listens. */
  apiKeyCache: ApiKeyCache;
  /** Account mail, queued as pg-boss jobs in a full process (mail/mail-deliveries.ts). */
  mail: MailOutbox;
}

/** Per request: a fresh identity map, and the raw API key header for the auth middleware. */
export interface Context {
  services: AppServices;
  em: EntityManager;
  clock: Clock;
  config: Config;
  log: Logger;
  apiKeyHeader: string | string[] | undefined;
  /** Raw `Idempotency-Key` header, read by the create procedure. */
  idempotencyKeyHeader: string | string[] | undefined;
  /**
   * Who per-address rate limits count: the client's address (the socket's, or per TRUST_PROXY),
   * an IPv6 one by its /64 (see rateLimitClient). Computed when asked: most requests never are.
   */
  clientAddress(): string;
  /** The client's own address (TRUST_PROXY decides whose), for a bank that asks the customer's. */
  clientIp(): string;
  /**
   * The organization of the stored key the request's key matched (for the request log);
   * `admitted` once the request passed every check (then its bodies are logged too).
   */
  noteKeyOwner(organizationId: string, admitted?: boolean): void;
  /** Adds a response header (rate-limit headers), whatever the procedure's outcome. */
  setHeader(name: string, value: string): void;
  /** Session cookie and CSRF header, for the dashboard's procedures. */
  dashboard: DashboardHttp;
  /**
   * If-None-Match and Prefer: wait, read when a procedure honours them (http/live-read.ts), or the
   * wait a procedure's input asks for (`asked`): either way the socket is kept open for it.
   */
  liveRead(asked?: AskedWait): LiveReadRequest;
  /** The request id and the request's trace context, for the tRPC procedure's span (observability/tracing.ts). */
  requestId?: string;
  traceParent?: () => OtelContext;
}

/** A request's Context from its Fastify request and reply, for /trpc and /api alike (app.ts makes one per app). */
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
    clientIp: () => plainClientAddress(req.ip),
    noteKeyOwner: (organizationId, admitted) => noteRequestKeyOwner(req, organizationId, admitted),
    setHeader: (name, value) => {
      res.header(name, value);
    },
    dashboard: dashboardHttp(req, res),
    liveRead: (asked) => liveReadRequest(req, res, services.config.timeouts.connectionMs, asked),
    requestId: req.id,
    traceParent: () => requestContext(req),
  });
}
