import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A caller's own id is kept when it is a plain token (what proxies and tracing systems send:
 * UUIDs, hex, `abc-123.4`); anything else (too long, spaces, control characters that could
 * split a log line or a header) is replaced by a fresh UUID.
 */
const USABLE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Fastify's `genReqId`: the id is bound to every log line of the request (`reqId`). */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && USABLE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** onRequest hook, first of all: every answer carries the id, also those a later hook sends. */
export async function echoRequestId(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('x-request-id', request.id);
}
