import { ErrorBody, parseJsonObjectBody } from '@pis/shared';
import { type AnyRouter, callTRPCProcedure, TRPCError } from '@trpc/server';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  coerceSchema,
  forEachOpenApiProcedure,
  getBody,
  getContentType,
  getErrorFromUnknown,
  getInputOutputParsers,
  getPathRegExp,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  type OpenApiMethod,
  type OpenApiProcedure,
  type OpenApiProcedureRecord,
  unwrapZodType,
  zodSupportsCoerce,
} from 'trpc-to-openapi';
import { ZodArray, type z } from 'zod';
import { noteRouteTemplate } from '../observability/http-metrics.ts';
import { logProcedureFailure, publicFailure } from '../trpc/public-failure.ts';
import { fastifyFailure, JSON_TYPE, sendFailure } from './fastify-failure.ts';
import { JsonText } from './json-text.ts';
import { StreamedAnswer } from './streamed-answer.ts';

export interface RestApiOptions {
  router: AnyRouter;
  createContext: (options: { req: FastifyRequest; res: FastifyReply }) => unknown;
  responseMeta: (options: { paths?: readonly string[] | undefined; errors: readonly unknown[] }) => {
    status?: number;
    headers?: Record<string, string>;
  };
}

/**
 * The REST API under /api, in its own Fastify scope so its hooks touch nothing else: the
 * procedures' answers and failures are made, envelope included, below (openApiHandler); what
 * Fastify rejects before a procedure runs (bad JSON, content type, size, unknown path) goes
 * through setErrorHandler / setNotFoundHandler and is enveloped there.
 * A 5xx never carries details: unexpected errors are logged and answered with a bare message.
 */
export async function restApi(app: FastifyInstance, options: RestApiOptions): Promise<void> {
  // JSON only; anything else is 415 before it reaches a procedure.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonObjectBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = fastifyFailure(error);
    if (failure.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendFailure(reply, failure);
  });

  app.setNotFoundHandler((_request, reply) =>
    sendFailure(reply, { status: 404, body: { message: 'Not found' } }),
  );

  await app.register(openApiHandler, {
    router: options.router,
    createContext: options.createContext,
    responseMeta: options.responseMeta,
    onError: ({ error, req }) => logProcedureFailure(req.log, error),
  });
}

// ---------------------------------------------------------------------------------------------
// The procedures

export interface OpenApiHandlerOptions {
  router: AnyRouter;
  createContext: (options: { req: FastifyRequest; res: FastifyReply }) => unknown;
  /** The status of a successful call (a procedure's `successStatus`). */
  responseMeta: (options: { paths?: readonly string[] | undefined; errors: readonly unknown[] }) => {
    status?: number;
  };
  onError: (options: { error: TRPCError; req: FastifyRequest }) => void;
}

/**
 * The REST edge: trpc-to-openapi's request handling, from its public functions (procedure
 * lookup by path, query and body reading, schema coercion, error normalising), in its order,
 * around tRPC's own `callTRPCProcedure` (what its adapters call: no caller proxy per request).
 * The answer is made here, envelope included:
 * `{success:true,data}` from the procedure's output, `{success:false,error}` from the one
 * failure mapping (trpc/public-failure.ts), never by re-reading a body.
 *
 * Why not its Fastify plugin (docs/decisions/020-rest-edge.md): it wraps each request in a
 * Fetch `Request` with an `AbortController`, binds methods on each reply and re-walks the input
 * schema per call (half of a GET's CPU under `npm run bench`); it has no hook for the body it
 * answers, so the envelope could only be made by re-parsing; it tries paths in registration
 * order (`/payments/{paymentId}` would swallow a later `/payments/providers`); it coerces body
 * schemas in place (a JSON `"3"` would pass as 3, for /trpc too); and HEAD gets an empty 204.
 */
export function openApiHandler(app: FastifyInstance, options: OpenApiHandlerOptions, done: () => void) {
  const { router } = options;
  const lookup = procedureLookup(router._def.procedures as OpenApiProcedureRecord);

  app.route({
    method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
    url: '/*',
    handler: async (request, reply) => {
      // HEAD is GET without the body (RFC 9110; Fastify routes it here and sends no body).
      const method = (request.method === 'HEAD' ? 'GET' : request.method) as OpenApiMethod;
      const url = new URL(`http://127.0.0.1${request.url.replace(app.prefix, '')}`);
      const found = lookup(method, normalizePath(url.pathname));
      try {
        if (!found) throw new TRPCError({ message: 'Not found', code: 'NOT_FOUND' });
        const { entry, pathInput } = found;
        noteRouteTemplate(request, `${app.prefix}${entry.route}`);
        const useBody = acceptsRequestBody(method);
        const contentType = getContentType(request as never);
        // A POST without a body (sync, cancel) needs no Content-Type.
        if (useBody && !bodyless(request) && !contentType?.startsWith('application/json')) {
          throw new TRPCError({
            code: 'UNSUPPORTED_MEDIA_TYPE',
            message: contentType ? `Unsupported content-type "${contentType}` : 'Missing content-type header',
          });
        }
        let input: Record<string, unknown> | undefined;
        if (!entry.isVoid) {
          const fields: Record<string, unknown> = {
            ...(useBody ? await getBody(request as never) : getQuery(request as never, url)),
            ...pathInput,
          };
          if (!useBody) {
            for (const key of entry.arrayKeys) {
              if (fields[key] !== undefined && !Array.isArray(fields[key])) fields[key] = [fields[key]];
            }
          }
          input = fields;
        }
        const data = await callTRPCProcedure({
          router,
          path: entry.path,
          type: entry.type,
          ctx: options.createContext({ req: request, res: reply }),
          getRawInput: async () => input,
          signal: undefined,
          batchIndex: 0,
        });
        if (data instanceof StreamedAnswer) {
          // Fastify pipes it and destroys it if the client leaves before the end.
          return reply
            .code(200)
            .headers(data.headers)
            .header('content-type', data.contentType)
            .send(data.body);
        }
        const status = options.responseMeta({ paths: [entry.path], errors: [] }).status ?? 200;
        const json = data instanceof JsonText ? data.text : (JSON.stringify(data) ?? 'null');
        return send(reply, status, `{"success":true,"data":${json}}`);
      } catch (cause) {
        const error = getErrorFromUnknown(cause);
        options.onError({ error, req: request });
        const failure = publicFailure(error);
        return sendFailure(reply, { ...failure, body: ErrorBody.parse(failure.body) });
      }
    },
  });
  done();
}

const bodyless = ({ headers }: FastifyRequest) =>
  headers['transfer-encoding'] === undefined &&
  (headers['content-length'] === undefined || headers['content-length'] === '0');

interface Entry {
  /** The procedure's path in the router (`payments.get`). */
  path: string;
  /** Its REST path template, as the OpenAPI document has it (`/payments/{paymentId}`). */
  route: string;
  type: 'query' | 'mutation';
  /** z.void() and the like: the procedure gets no input at all. */
  isVoid: boolean;
  /** Array fields: a single query value is wrapped (`?status=A` -> ['A']). */
  arrayKeys: string[];
}

/**
 * Procedures by method and path. Fewer path parameters win (as in Fastify's own router), then
 * the router's order: a static `/payments/providers` is never taken for `/payments/{paymentId}`.
 */
function procedureLookup(procedures: OpenApiProcedureRecord) {
  const byMethod = new Map<string, { pattern: RegExp; parameters: number; entry: Entry }[]>();
  forEachOpenApiProcedure(procedures, ({ path, type, procedure, meta: { openapi } }) => {
    if (type === 'subscription') return;
    const routePath = normalizePath(openapi.path);
    const routes = byMethod.get(openapi.method) ?? [];
    routes.push({
      pattern: getPathRegExp(routePath),
      parameters: (routePath.match(/\{[^}]+\}/g) ?? []).length,
      entry: { path, route: routePath, type, ...prepareInput(procedure, acceptsRequestBody(openapi.method)) },
    });
    byMethod.set(openapi.method, routes);
  });
  for (const routes of byMethod.values()) routes.sort((a, b) => a.parameters - b.parameters);
  return (method: OpenApiMethod, path: string) => {
    for (const { pattern, entry } of byMethod.get(method) ?? []) {
      const match = pattern.exec(path);
      if (match) return { entry, pathInput: match.groups ?? {} };
    }
    return undefined;
  };
}

/**
 * Once per procedure. Query strings carry no JSON types, so GET/DELETE inputs are coerced
 * (trpc-to-openapi's coercion, set in place once: it only ever sets the same flags); a body
 * keeps its JSON types, so its schema is left alone.
 */
function prepareInput(
  procedure: OpenApiProcedure,
  takesBody: boolean,
): Omit<Entry, 'path' | 'route' | 'type'> {
  const { inputParser } = getInputOutputParsers(procedure);
  const unwrapped = unwrapZodType(inputParser as never, true);
  const arrayKeys: string[] = [];
  if (!takesBody && zodSupportsCoerce && instanceofZodTypeObject(unwrapped)) {
    for (const [key, shape] of Object.entries(unwrapped.shape)) {
      const inner = instanceofZodTypeOptional(shape as never) ? (shape as z.ZodOptional).unwrap() : shape;
      if (shape instanceof ZodArray || inner instanceof ZodArray) arrayKeys.push(key);
    }
    coerceSchema(unwrapped);
  }
  return { isVoid: instanceofZodTypeLikeVoid(unwrapped), arrayKeys };
}

function send(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', JSON_TYPE).send(body);
}
