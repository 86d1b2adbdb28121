import fastifyCookie from '@fastify/cookie';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { type AppRouter, appRouter } from './app-router.ts';
import { type ApiKeyCache, noApiKeyCache } from './auth/api-key-cache.ts';
import { bankLogoRoutes } from './catalogue/bank-logo-route.ts';
import { BODY_LIMIT_BYTES, type Config } from './config.ts';
import { dashboardExportRoute } from './dashboard/export-route.ts';
import { envelopeClientError } from './http/client-error.ts';
import { docsRoutes, docsScriptHashes } from './http/docs-page.ts';
import {
  envelopeErrors,
  envelopeFrameworkError,
  refuseTrpcFormData,
  rejectUnusableHost,
} from './http/fastify-failure.ts';
import { healthRoutes } from './http/health.ts';
import { buildOpenApiDocument } from './http/openapi-document.ts';
import { withExamples } from './http/openapi-examples.ts';
import { echoRequestId, requestIdOf, securityHeaders } from './http/request-hooks.ts';
import { restApi } from './http/rest-api.ts';
import { refuseTrpcStreaming } from './http/trpc-transport.ts';
import { webApp } from './http/web-app.ts';
import { drainHooks, type HttpDrain } from './lifecycle/http-drain.ts';
import { type Logger, silentLogger } from './logger.ts';
import { type MailOutbox, noMailOutbox } from './mail/mail-message.ts';
import { createRouteResolver, observeHttp } from './observability/http-metrics.ts';
import { type RequestLogWriter, requestLogHooks } from './observability/request-log.ts';
import { traceHttp } from './observability/tracing.ts';
import { brandLogoRoutes } from './organizations/brand-logo-route.ts';
import { providerRoutes } from './payments/customer-pages/provider-routes.ts';
import { noopPaymentScheduler, type PaymentScheduler } from './payments/payment-scheduler.ts';
import { noPaymentWaiters, type PaymentWaiters } from './payments/payment-waiters.ts';
import { defaultProviderRegistry } from './providers/default-providers.ts';
import type { ProviderRegistry } from './providers/provider-registry.ts';
import { rateLimitsDocs } from './rate-limits/rate-limits-docs.ts';
import { type AppServices, createContextFactory } from './trpc/context.ts';
import { logProcedureFailure } from './trpc/public-failure.ts';
import { createResponseMeta } from './trpc/response-meta.ts';

export interface BuildAppOptions
  extends Omit<
    AppServices,
    'configuredProviders' | 'providers' | 'scheduler' | 'waiters' | 'apiKeyCache' | 'mail'
  > {
  configuredProviders?: readonly string[];
  /** Default: the Mock bank only. */
  providers?: ProviderRegistry;
  /** Default: none (reads and the sweep still catch payments up); `main.ts` passes pg-boss's. */
  scheduler?: PaymentScheduler;
  /** Default: none (a read never waits); `main.ts` passes the process's, on its listening connection. */
  waiters?: PaymentWaiters;
  /** Default: none (every request reads its key); `main.ts` passes the process's, fed by its listening connection. */
  apiKeyCache?: ApiKeyCache;
  /** Default: none (account mail is dropped); `main.ts` passes pg-boss's outbox. */
  mail?: MailOutbox;
  logger?: Logger;
  /** Default: none (tests); `main.ts` passes the one its SIGTERM begins (lifecycle/http-drain.ts). */
  drain?: HttpDrain;
  /** Default: none (tests); `main.ts` passes the process's batched writer (observability/request-log.ts). */
  requestLog?: RequestLogWriter;
}

/**
 * The HTTP application, without listening: `main.ts` listens, tests call `app.inject`.
 * /api    REST (trpc-to-openapi) with the spec's envelope, see http/rest-api.ts
 * /trpc   the same procedures for our own web app and tRPC clients
 * /api/openapi.json, /docs   the generated contract and its interactive reference
 * /health, /ready   probes for load balancers (http/health.ts)
 * /bank-logos/<id>.svg, and the built SPA with a deep-link fallback
 * Every answer: x-request-id and the security headers (http/request-hooks.ts).
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const providers =
    options.providers ?? (await defaultProviderRegistry(options.config, options.orm, options.logger));
  const services: AppServices = {
    config: options.config,
    orm: options.orm,
    clock: options.clock,
    configuredProviders: options.configuredProviders ?? providers.codes(),
    providers,
    scheduler: options.scheduler ?? noopPaymentScheduler,
    waiters: options.waiters ?? noPaymentWaiters,
    apiKeyCache: options.apiKeyCache ?? noApiKeyCache,
    mail: options.mail ?? noMailOutbox,
  };
  const app = Fastify({
    loggerInstance: (options.logger ?? silentLogger()) as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    // Batched tRPC calls put every procedure name into the path.
    routerOptions: { maxParamLength: 5000 },
    // Links use PUBLIC_BASE_URL, never the request's Host, so X-Forwarded-* need not be trusted.
    // TRUST_PROXY names the load balancer, so per-address rate limits see the client, not it.
    trustProxy: fastifyTrustProxy(options.config.trustProxy),
    clientErrorHandler: envelopeClientError,
    // Slow clients cannot hold sockets: the whole request (headers and body) must arrive within
    // requestTimeout (else 408, see http/client-error.ts), and an idle socket closes after
    // connectionTimeout. Node checks these every connectionsCheckingInterval (30 s by default,
    // which would let a 10 s limit run to 40 s).
    requestTimeout: options.config.timeouts.requestMs,
    connectionTimeout: options.config.timeouts.connectionMs,
    // Between requests too (Fastify's default keep-alive is 72 s, for AWS load balancers' 60 s):
    // an idle socket is a file descriptor and memory. Behind a load balancer that keeps idle
    // connections longer than this, raise CONNECTION_TIMEOUT_MS above its idle timeout.
    keepAliveTimeout: options.config.timeouts.connectionMs,
    http: { connectionsCheckingInterval: 1_000, headersTimeout: options.config.timeouts.requestMs },
    frameworkErrors: envelopeFrameworkError,
    // The caller's x-request-id when usable, else a UUID: on every answer and every log line.
    genReqId: requestIdOf,
    // A request that reaches a stopping instance is served (with Connection: close), never
    // refused: the drain has already taken it out of the load balancer (lifecycle/http-drain.ts).
    return503OnClosing: false,
  });

  // Past this many open sockets Node closes a new one at once: what the process can hold (memory,
  // file descriptors) is bounded however many clients connect (docs/decisions/044-organization-budgets.md).
  app.server.maxConnections = options.config.maxConnections;
  app.addHook('onRequest', echoRequestId);
  traceHttp(app);
  if (options.drain) drainHooks(app, options.drain);
  // The route template, for the metrics' label and the request log (read once the document exists).
  const routeOf = createRouteResolver(() => openApiDocument);
  observeHttp(app, routeOf);
  if (options.requestLog) requestLogHooks(app, options.requestLog, routeOf);
  // Before close waits for in-flight requests: waiting reads answer now, with the current state.
  app.addHook('preClose', async () => services.waiters.drain());
  envelopeErrors(app);
  await securityHeaders(app, {
    publicBaseUrl: options.config.publicBaseUrl,
    docsScriptHashes,
  });
  // tRPC's adapter and the docs plugin build URLs from the Host header and throw on a junk one.
  app.addHook('onRequest', rejectUnusableHost);
  // Parsed only when a dashboard procedure reads its session (no hook on every request).
  await app.register(fastifyCookie, { hook: false });
  const createContext = createContextFactory(services);
  const responseMeta = createResponseMeta(appRouter);

  await app.register(async (trpcScope) => {
    // In tRPC's own scope: only its requests pay for the checks of its transport.
    trpcScope.addHook('onRequest', refuseTrpcFormData);
    trpcScope.addHook('onRequest', refuseTrpcStreaming);
    await trpcScope.register(fastifyTRPCPlugin, {
      prefix: '/trpc',
      trpcOptions: {
        router: appRouter,
        // Each call of a batch runs (and is rate-limited) on its own: bound how many one request holds.
        maxBatchSize: options.config.trpcMaxBatchSize,
        createContext,
        responseMeta,
        onError: ({ error, req }: { error: unknown; req: FastifyRequest }) => {
          logProcedureFailure(req.log, error);
        },
      },
    });
  });

  await app.register(restApi, { prefix: '/api', router: appRouter, createContext, responseMeta });
  // The dashboard's CSV download (session cookie, not a key): outside the /api scope's handler.
  dashboardExportRoute(app, createContext);

  // Raw JSON (not enveloped): validators and the reference page read it as a document.
  const openApiDocument = withExamples(
    buildOpenApiDocument(appRouter, options.config.publicBaseUrl, rateLimitsDocs(options.config.rateLimits)),
  );
  app.get('/api/openapi.json', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(openApiDocument),
  );
  await app.register(docsRoutes);

  await app.register(healthRoutes, { orm: options.orm });
  await app.register(bankLogoRoutes);
  await app.register(brandLogoRoutes, { orm: options.orm });
  await app.register(providerRoutes, { services });
  await webApp(app, { distDir: options.config.webDistDir });
  return app;
}

/** A hop count trusts that many proxies in front of us (Fastify's types take it as a function). */
function fastifyTrustProxy(
  setting: Config['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

export type { AppRouter };
