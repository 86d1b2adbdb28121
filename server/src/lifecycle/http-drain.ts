import { AppError } from '@pis/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendFailure } from '../http/fastify-failure.ts';

/**
 * The first phase of a rolling restart (docs/decisions/061-rolling-restarts.md). On SIGTERM the
 * instance keeps serving everything for SHUTDOWN_DRAIN_MS but answers `/ready` with 503, so the
 * load balancer's health check takes it out of rotation while nothing is refused; every answer
 * in that time also says `Connection: close`, so each keep-alive connection still in use ends
 * cleanly after its answer instead of being reset when the server stops. Only then does the
 * HTTP step close the server (Fastify then adds `Connection: close` itself and, with
 * `return503OnClosing: false`, still serves a request that arrives on an open connection).
 */
export class HttpDrain {
  #draining = false;

  get draining(): boolean {
    return this.#draining;
  }

  begin(): void {
    this.#draining = true;
  }
}

/** The app's part of the drain: installed by buildApp before any route, so it sees every one. */
export function drainHooks(app: FastifyInstance, drain: HttpDrain): void {
  // A callback hook (it runs on every request): the async form costs a promise each time.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done) => {
    if (!drain.draining) return done();
    reply.header('connection', 'close');
    if (request.method === 'GET' && request.routeOptions.url === '/ready') {
      const error = new AppError('NOT_READY', 'Not ready: shutting down');
      sendFailure(reply, { status: error.status, body: error.toBody() });
      return;
    }
    done();
  });
}
