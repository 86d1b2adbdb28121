import { AppError, type ErrorBody, validationFailed } from '@pis/shared';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  type PublicFailure,
  payloadTooLarge,
  publicFailure,
  unsupportedMediaType,
} from '../trpc/public-failure.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';
export const INTERNAL_BODY: ErrorBody = { message: 'Internal server error', code: 'INTERNAL_ERROR' };

/**
 * Answers `failure` as the error envelope, with the failure's own headers (`Retry-After`): the
 * one writer of `{"success":false,"error":...}` for every answer Fastify sends (REST procedures,
 * /api's and the app's error and not-found handlers, probes, the drain, logos). Only what Node's
 * parser rejects before Fastify has a reply is written on the socket (http/client-error.ts).
 */
export function sendFailure(reply: FastifyReply, failure: PublicFailure): FastifyReply {
  if (failure.headers) reply.headers(failure.headers);
  return reply
    .code(failure.status)
    .header('content-type', JSON_TYPE)
    .send({ success: false, error: failure.body });
}

/** What the client sees for an error Fastify (or a plugin outside tRPC) raised. */
export function fastifyFailure(error: FastifyError): PublicFailure {
  if (error instanceof AppError) return publicFailure(error);
  const status = error.statusCode ?? 500;
  if (status === 413) return publicFailure(payloadTooLarge());
  if (status === 415) return publicFailure(unsupportedMediaType());
  if (status === 404) return { status, body: { message: 'Not found' } };
  if (status >= 400 && status < 500) {
    return publicFailure(validationFailed([{ field: 'body', message: error.message }]));
  }
  return { status: 500, body: INTERNAL_BODY };
}

/**
 * Errors Fastify raises before routing (`frameworkErrors`): a URL with broken percent-encoding
 * is the client's 400 VALIDATION_FAILED in the envelope, not Fastify's own body.
 */
export function envelopeFrameworkError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const failure =
    error.code === 'FST_ERR_BAD_URL'
      ? publicFailure(
          validationFailed([{ field: 'path', message: 'is not a valid URL (bad percent-encoding)' }]),
        )
      : fastifyFailure(error);
  void sendFailure(reply, failure);
}

/**
 * Outside /api (static files, logos, /docs, /trpc's Fastify layer) errors are envelopes too,
 * and a 5xx never says more than "Internal server error". /api has its own handler.
 */
export function envelopeErrors(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const failure = fastifyFailure(error);
    if (failure.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendFailure(reply, failure);
  });
}

/**
 * onRequest hook for plugins that parse the Host header: a junk one is the client's 400. A
 * deployment is reached under a few names, so the origins that parsed are remembered (a bounded
 * set) and a request under one of them skips the URL parse; a callback hook, as it runs on every
 * request.
 */
export function rejectUnusableHost(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  // The host with its port: tRPC builds its URL from the whole Host (a port of 99999 threw there).
  const origin = `${request.protocol}://${request.host}`;
  if (usableOrigins.has(origin)) {
    done();
    return;
  }
  try {
    new URL(origin);
  } catch {
    // The spec's 400 for bad input, with the header named (it had no code: the contract test).
    sendFailure(
      reply,
      publicFailure(validationFailed([{ field: 'Host', message: 'is not a valid host name' }])),
    );
    return;
  }
  if (usableOrigins.size >= USABLE_ORIGINS_KEPT) usableOrigins.clear();
  usableOrigins.add(origin);
  done();
}

const USABLE_ORIGINS_KEPT = 100;
const usableOrigins = new Set<string>();

/**
 * onRequest hook: tRPC's Fastify adapter accepts multipart/form-data for FormData inputs, which
 * no procedure of ours takes, and answers every such request with a 500 (it re-serialises the
 * raw body stream). Refused up front as the 415 it is. Registered in tRPC's own scope.
 */
export async function refuseTrpcFormData(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const type = request.headers['content-type'];
  if (typeof type !== 'string' || !/^\s*multipart\//i.test(type)) return;
  await sendFailure(reply, publicFailure(unsupportedMediaType()));
}
