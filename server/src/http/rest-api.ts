import { ErrorBody, parseJsonObjectBody } from '@pis/shared';
import type { AnyRouter } from '@trpc/server';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { instanceofZodTypeObject, unwrapZodType } from 'trpc-to-openapi';
import { z } from 'zod';
import type { Context } from '../context.ts';
import { logProcedureFailure } from '../trpc/public-failure.ts';
import { fastifyFailure, INTERNAL_BODY, JSON_TYPE } from './fastify-failure.ts';
import { openApiHandler } from './openapi-handler.ts';

export interface RestApiOptions {
  router: AnyRouter;
  createContext: (options: { req: FastifyRequest; res: FastifyReply }) => Context;
  responseMeta: (options: { paths?: readonly string[] | undefined; errors: readonly unknown[] }) => {
    status?: number;
    headers?: Record<string, string>;
  };
}

/**
 * The REST API under /api, in its own Fastify scope so its hooks touch nothing else.
 *
 * trpc-to-openapi has no hook for response bodies (success bodies are the raw output; error
 * bodies are its own shape), so the envelope is applied here:
 * - onSend wraps 2xx as `{success:true,data}` and turns error bodies into
 *   `{success:false,error}` from the `appError` our errorFormatter put into `data`;
 * - what Fastify rejects before tRPC runs (bad JSON, content type, size, unknown method) goes
 *   through setErrorHandler / setNotFoundHandler and is enveloped there.
 * A 5xx never carries details: unexpected errors are logged and answered with a bare message.
 */
export async function restApi(app: FastifyInstance, options: RestApiOptions): Promise<void> {
  /** Replies this scope already built as envelopes (error and not-found handlers). */
  const enveloped = new WeakSet<FastifyRequest>();

  // JSON only; anything else is 415 before it reaches a procedure.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonObjectBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // HEAD is GET without the body (RFC 9110): same status and headers, so an unauthenticated
  // HEAD is 401 and an unknown path 404, never trpc-to-openapi's empty 204.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'HEAD') return;
    const response = await app.inject({ method: 'GET', url: request.url, headers: request.headers });
    const {
      'content-length': _length,
      'transfer-encoding': _encoding,
      'x-request-id': _requestId,
      ...headers
    } = response.headers;
    return reply.code(response.statusCode).headers(headers).send();
  });

  // A POST without a body (sync, cancel) needs no Content-Type; trpc-to-openapi insists on one.
  app.addHook('onRequest', async (request) => {
    const { headers } = request;
    const bodyless =
      headers['transfer-encoding'] === undefined &&
      (headers['content-length'] === undefined || headers['content-length'] === '0');
    if (
      bodyless &&
      headers['content-type'] === undefined &&
      !['GET', 'HEAD', 'DELETE'].includes(request.method)
    ) {
      headers['content-type'] = 'application/json';
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    if (enveloped.has(request)) return payload;
    const status = reply.statusCode;
    if (status === 204 || status === 304) return payload;
    const text = payloadText(payload);
    if (text === undefined) return payload;
    reply.header('content-type', JSON_TYPE);
    if (status < 400) return `{"success":true,"data":${text === '' ? 'null' : text}}`;
    return JSON.stringify({ success: false, error: errorBodyFromTrpc(text, status) });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = fastifyFailure(error);
    if (failure.status >= 500) request.log.error({ err: error }, 'request failed');
    enveloped.add(request);
    return reply
      .code(failure.status)
      .header('content-type', JSON_TYPE)
      .send({ success: false, error: failure.body });
  });

  app.setNotFoundHandler((request, reply) => {
    enveloped.add(request);
    return reply
      .code(404)
      .header('content-type', JSON_TYPE)
      .send({ success: false, error: { message: 'Not found' } });
  });

  // trpc-to-openapi's handler, minus its per-request overhead (see openapi-handler.ts).
  await app.register(openApiHandler, {
    router: routerForOpenApiHandler(options.router),
    createContext: options.createContext,
    responseMeta: options.responseMeta,
    onError: ({ error, req }) => logProcedureFailure(req.log, error),
  });
}

function payloadText(payload: unknown): string | undefined {
  if (payload === undefined || payload === null) return '';
  if (typeof payload === 'string') return payload;
  if (Buffer.isBuffer(payload)) return payload.toString('utf8');
  return undefined; // a stream: not produced under /api
}

function errorBodyFromTrpc(text: string, status: number): ErrorBody {
  try {
    const parsed = ErrorBody.safeParse(
      (JSON.parse(text) as { data?: { appError?: unknown } }).data?.appError,
    );
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: fall through to a body derived from the status
  }
  if (status === 404) return { message: 'Not found' };
  return status >= 500 ? INTERNAL_BODY : { message: 'Request failed' };
}

type AnyProcedureLike = {
  _def: { inputs?: unknown[]; meta?: { openapi?: { path?: string; method?: string } } };
};

/**
 * The router as trpc-to-openapi's request handler should see it. Two of its habits are
 * corrected here, without touching the procedures that actually run (the handler calls them
 * through `router.createCaller`, i.e. the original router):
 *
 * 1. It tries paths in registration order, so `/payments/{paymentId}` declared before
 *    `/payments/providers` would swallow it. Fewer path parameters win (as in Fastify's own
 *    router); otherwise the order is kept.
 * 2. Before each call it sets `coerce = true` on the number/boolean fields of the input
 *    schema, in place: a JSON body's `"3"` would become 3, `"false"` true, and the shared
 *    schemas would stay mutated for /trpc too. Procedures that take a body are given stand-in
 *    inputs with the same keys instead (strings, which it leaves alone); the real schemas parse
 *    the input, unmodified. Query inputs (GET/DELETE) keep the coercion query strings need.
 */
export function routerForOpenApiHandler<TRouter extends AnyRouter>(router: TRouter): TRouter {
  const parameters = (procedure: AnyProcedureLike) =>
    (procedure._def.meta?.openapi?.path?.match(/\{[^}]+\}/g) ?? []).length;
  const entries = Object.entries(router._def.procedures as Record<string, AnyProcedureLike>)
    .sort(([, a], [, b]) => parameters(a) - parameters(b))
    .map(([path, procedure]) => [path, withStandInInputs(procedure)] as const);
  return { ...router, _def: { ...router._def, procedures: Object.fromEntries(entries) } };
}

function withStandInInputs(procedure: AnyProcedureLike): AnyProcedureLike {
  const inputs = procedure._def.inputs ?? [];
  // Query strings do need coercion (and carry no JSON types to protect): GET/DELETE keep it.
  const method = procedure._def.meta?.openapi?.method;
  if (inputs.length === 0 || method === 'GET' || method === 'DELETE') return procedure;
  const shape: Record<string, z.ZodString> = {};
  for (const input of inputs) {
    const unwrapped = unwrapZodType(input as z.ZodType, true) as { shape?: Record<string, unknown> };
    if (!instanceofZodTypeObject(unwrapped as never) || !unwrapped.shape) return procedure;
    for (const key of Object.keys(unwrapped.shape)) shape[key] = z.string();
  }
  return { _def: { ...procedure._def, inputs: [z.object(shape)] } };
}
