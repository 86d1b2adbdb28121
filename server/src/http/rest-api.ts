import { parseJsonObjectBody } from '@pis/shared';
import type { AnyRouter } from '@trpc/server';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../context.ts';
import { logProcedureFailure } from '../trpc/public-failure.ts';
import { fastifyFailure, JSON_TYPE } from './fastify-failure.ts';
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
 * The REST API under /api, in its own Fastify scope so its hooks touch nothing else: the
 * procedures' answers and failures are made, envelope included, in openapi-handler.ts; what
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
    return reply
      .code(failure.status)
      .header('content-type', JSON_TYPE)
      .send({ success: false, error: failure.body });
  });

  app.setNotFoundHandler((_request, reply) =>
    reply
      .code(404)
      .header('content-type', JSON_TYPE)
      .send({ success: false, error: { message: 'Not found' } }),
  );

  await app.register(openApiHandler, {
    router: options.router,
    createContext: options.createContext,
    responseMeta: options.responseMeta,
    onError: ({ error, req }) => logProcedureFailure(req.log, error),
  });
}
