import { type AnyRouter, TRPCError } from '@trpc/server';
import { getErrorShape } from '@trpc/server/unstable-core-do-not-import';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptsRequestBody,
  coerceSchema,
  createProcedureCache,
  getBody,
  getContentType,
  getErrorFromUnknown,
  getInputOutputParsers,
  getQuery,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  type OpenApiMethod,
  type OpenApiRouter,
  TRPC_ERROR_CODE_HTTP_STATUS,
  unwrapZodType,
  zodSupportsCoerce,
} from 'trpc-to-openapi';
import { ZodArray, type z } from 'zod';

export interface OpenApiHandlerOptions {
  /** The router as the handler should see it (see rest-api.ts): lookups, coercion, and `createCaller`. */
  router: AnyRouter;
  createContext: (options: { req: FastifyRequest; res: FastifyReply }) => unknown;
  responseMeta: (options: { paths?: readonly string[] | undefined; errors: readonly unknown[] }) => {
    status?: number;
    headers?: Record<string, string>;
  };
  onError: (options: { error: TRPCError; req: FastifyRequest }) => void;
}

/**
 * trpc-to-openapi's Fastify adapter (3.3.0) without its per-request costs, same answers.
 * Its handler wraps every request in a Fetch `Request` with an `AbortController` (only for a
 * signal no procedure reads, and aborted on every response because the Fastify reply has no
 * `writableEnded`), redefines properties and binds methods on each reply, and re-walks the
 * input schema on every call. Under `npm run bench` that was about half of the CPU of a GET.
 * Here the lookup, the input assembly, the coercion (in place, once per procedure: it only ever
 * sets the same flags) and the error shape are trpc-to-openapi's own functions, in its order;
 * the raw output or error shape is sent for rest-api.ts's onSend to envelope, as before.
 */
export function openApiHandler(app: FastifyInstance, options: OpenApiHandlerOptions, done: () => void) {
  const router = options.router as OpenApiRouter;
  const getProcedure = createProcedureCache(router);
  const prepared = new WeakMap<object, PreparedInput>();
  const prepare = (procedure: Parameters<typeof getInputOutputParsers>[0]): PreparedInput => {
    let entry = prepared.get(procedure);
    if (!entry) {
      entry = prepareInput(procedure);
      prepared.set(procedure, entry);
    }
    return entry;
  };

  app.route({
    method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'],
    url: '/*',
    handler: async (request, reply) => {
      const method = request.method as OpenApiMethod;
      const url = new URL(`http://127.0.0.1${request.url.replace(app.prefix, '')}`);
      const found = getProcedure(method, normalizePath(url.pathname));
      const procedure = found?.procedure;
      let input: Record<string, unknown> | undefined;
      let ctx: unknown;
      try {
        if (!procedure) throw new TRPCError({ message: 'Not found', code: 'NOT_FOUND' });
        const useBody = acceptsRequestBody(method);
        const contentType = getContentType(request as never);
        if (useBody && !contentType?.startsWith('application/json')) {
          throw new TRPCError({
            code: 'UNSUPPORTED_MEDIA_TYPE',
            message: contentType ? `Unsupported content-type "${contentType}` : 'Missing content-type header',
          });
        }
        const { isVoid, arrayKeys } = prepare(procedure.procedure);
        if (!isVoid) {
          const fields: Record<string, unknown> = {
            ...(useBody ? await getBody(request as never) : getQuery(request as never, url)),
            ...found.pathInput,
          };
          if (!useBody) {
            for (const key of arrayKeys) {
              if (fields[key] !== undefined && !Array.isArray(fields[key])) fields[key] = [fields[key]];
            }
          }
          input = fields;
        }
        ctx = options.createContext({ req: request, res: reply });
        const caller = router.createCaller(ctx as never) as unknown as Record<string, unknown>;
        const call = procedure.path
          .split('.')
          .reduce((target, segment) => (target as Record<string, unknown>)[segment], caller as unknown) as (
          input: unknown,
        ) => Promise<unknown>;
        const data = await call(input);
        const meta = options.responseMeta({ paths: [procedure.path], errors: [] });
        return send(reply, meta.status ?? 200, data);
      } catch (cause) {
        const error = getErrorFromUnknown(cause);
        options.onError({ error, req: request });
        const meta = options.responseMeta({
          paths: procedure ? [procedure.path] : undefined,
          errors: [error],
        });
        if (meta.headers) reply.headers(meta.headers);
        const type = procedure?.type ?? 'unknown';
        const errorShape = getErrorShape({
          config: router._def._config,
          error,
          type,
          path: procedure?.path,
          input,
          ctx,
        }) as { message?: string } | undefined;
        const isInputValidationError =
          error.code === 'BAD_REQUEST' && error.cause instanceof Error && error.cause.name === 'ZodError';
        return send(reply, meta.status ?? TRPC_ERROR_CODE_HTTP_STATUS[error.code] ?? 500, {
          ...errorShape,
          message: isInputValidationError
            ? 'Input validation failed'
            : (errorShape?.message ?? error.message ?? 'An error occurred'),
          code: error.code,
          issues: isInputValidationError ? (error.cause as unknown as { issues: unknown }).issues : undefined,
        });
      }
    },
  });
  done();
}

interface PreparedInput {
  /** z.void() and the like: the procedure gets no input at all. */
  isVoid: boolean;
  /** Array fields: a single query value is wrapped (`?status=A` -> ['A']). */
  arrayKeys: string[];
}

function prepareInput(procedure: Parameters<typeof getInputOutputParsers>[0]): PreparedInput {
  const { inputParser } = getInputOutputParsers(procedure);
  const unwrapped = unwrapZodType(inputParser as never, true);
  const arrayKeys: string[] = [];
  if (zodSupportsCoerce && instanceofZodTypeObject(unwrapped)) {
    for (const [key, shape] of Object.entries(unwrapped.shape)) {
      const inner = instanceofZodTypeOptional(shape as never) ? (shape as z.ZodOptional).unwrap() : shape;
      if (shape instanceof ZodArray || inner instanceof ZodArray) arrayKeys.push(key);
    }
    coerceSchema(unwrapped);
  }
  return { isVoid: instanceofZodTypeLikeVoid(unwrapped), arrayKeys };
}

/** As trpc-to-openapi sends: JSON text (or nothing for an undefined body) with its status. */
function send(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
}
