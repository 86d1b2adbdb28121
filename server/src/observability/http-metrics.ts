import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpRequestDuration, OTHER, rateLimitRefusals } from './metrics.ts';

/** OpenTelemetry's known HTTP methods; anything else is `_OTHER` (a client picks the method). */
const METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);
/** A path no route matched: never the raw path. */
export const UNMATCHED_ROUTE = 'unmatched';

type OpenApiPaths = { paths?: Record<string, unknown> | undefined };
type ApiRoute = { template: string; pattern: RegExp };

/**
 * The request-duration histogram and the 429 counter, from one onResponse hook on the root (so
 * every route, /api's envelope and the not-found handlers included). The route label is the
 * route's template: Fastify's for its own routes; for /api, where trpc-to-openapi serves every
 * path from one wildcard route, the OpenAPI document's path template (`/api/payments/{paymentId}`).
 * (`routeOf`: createRouteResolver, which reads the document on first use: buildApp builds it after
 * the hooks are in place).
 */
export function observeHttp(app: FastifyInstance, routeOf: RouteResolver): void {
  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const route = routeOf(request);
    const method = METHODS.has(request.method) ? request.method : OTHER;
    httpRequestDuration.observe(
      { http_request_method: method, http_route: route, http_response_status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    if (reply.statusCode === 429)
      rateLimitRefusals.inc({ limit: limitOf(request.method, route, request.url) });
    done();
  });
}

/** A request's route template (never its raw path); `unmatched` when no route took it. */
export type RouteResolver = (request: FastifyRequest) => string;

/** The app makes one, for the metrics and the request log. */
export function createRouteResolver(openApiDocument: () => OpenApiPaths): RouteResolver {
  let apiRoutes: ApiRoute[] | undefined;
  const apiRoute = (path: string): string => {
    apiRoutes ??= compileApiRoutes(openApiDocument());
    for (const route of apiRoutes) if (route.pattern.test(path)) return route.template;
    return UNMATCHED_ROUTE;
  };
  const routeOf = (request: FastifyRequest): string => {
    const template = request.routeOptions.url;
    if (template === undefined) return UNMATCHED_ROUTE;
    if (template === '/api/*') return apiRoute(pathOf(request.url));
    return template;
  };
  // Once per request: the metrics and the request log both ask (/api's is a walk of patterns).
  return (request) => {
    const known = request as FastifyRequest & { [ROUTE]?: string };
    known[ROUTE] ??= routeOf(request);
    return known[ROUTE];
  };
}

const ROUTE = Symbol('pis.route-template');

/**
 * The REST edge's word for the template of the procedure it found (http/rest-api.ts), so the
 * resolver need not walk the document's patterns again on every /api request.
 */
export function noteRouteTemplate(request: FastifyRequest, template: string): void {
  (request as FastifyRequest & { [ROUTE]?: string })[ROUTE] = template;
}

const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** Templates with fewer parameters first, as the handler matches them (`/payments/providers` is not an id). */
function compileApiRoutes(document: OpenApiPaths): ApiRoute[] {
  return Object.keys(document.paths ?? {})
    .map((path) => {
      const parameters = (path.match(/\{[^}]+\}/g) ?? []).length;
      const source = path
        .split(/(\{[^}]+\})/)
        .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return { template: `/api${path}`, pattern: new RegExp(`^/api${source}/?$`), parameters };
    })
    .sort((a, b) => a.parameters - b.parameters)
    .map(({ template, pattern }) => ({ template, pattern }));
}

/** Which budget refused a request (see rate-limits/): from the route, as the limiter decides it. */
function limitOf(method: string, route: string, url: string): string {
  if (route.endsWith('/event-notifications')) return 'bank_notifications';
  if (route.startsWith('/providers/')) return 'pages';
  if (route.startsWith('/api')) return method === 'GET' || method === 'HEAD' ? 'api_reads' : 'api_writes';
  if (route.startsWith('/trpc')) return pathOf(url).startsWith('/trpc/pages.') ? 'pages' : 'dashboard';
  return OTHER;
}
