import { validationFailed } from '@pis/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { publicFailure } from '../trpc/public-failure.ts';
import { sendFailure } from './fastify-failure.ts';

const JSONL = /(^|,)\s*application\/jsonl\s*(;|,|$)/i;
const EVENT_STREAM = /(^|,)\s*text\/event-stream\s*(;|,|$)/i;

/**
 * What a /trpc request may ask of the transport: one JSON answer per request, nothing held open.
 * tRPC 11 streams a batch as JSON lines when asked (`trpc-accept: application/jsonl`, or that
 * type in Accept) and serves subscriptions over server-sent events: a response that stays open
 * for as long as the client likes, outside every budget and timeout that bounds the public
 * endpoint (issue 24's review). Both are refused before tRPC sees the request, 400
 * VALIDATION_FAILED naming the header; the router has no subscription procedure either (a test
 * keeps it so). Our own clients use tRPC's plain `httpLink`.
 */
export function transportProblem(request: FastifyRequest): { field: string; message: string } | undefined {
  const trpcAccept = request.headers['trpc-accept'];
  if (trpcAccept !== undefined) {
    return { field: 'trpc-accept', message: 'is not supported: streamed responses are not offered, omit it' };
  }
  const accept = request.headers.accept ?? '';
  if (JSONL.test(accept) || EVENT_STREAM.test(accept)) {
    return {
      field: 'accept',
      message: 'must not ask for application/jsonl or text/event-stream: answers are single JSON documents',
    };
  }
  const query = request.url.indexOf('?');
  if (query !== -1 && new URLSearchParams(request.url.slice(query + 1)).has('connectionParams')) {
    return { field: 'connectionParams', message: 'is not supported: there are no subscriptions' };
  }
  return undefined;
}

/**
 * onRequest hook, in tRPC's own scope: refuses streaming and subscription requests on /trpc (see
 * transportProblem).
 */
export async function refuseTrpcStreaming(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const problem = transportProblem(request);
  if (problem) await sendFailure(reply, publicFailure(validationFailed([problem])));
}
