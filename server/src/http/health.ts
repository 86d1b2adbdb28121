import { AppError } from '@pis/shared';
import type { FastifyInstance } from 'fastify';
import type { Orm } from '../db/orm.ts';
import { databaseNotReady } from '../db/readiness.ts';
import { JSON_TYPE, sendFailure } from './fastify-failure.ts';

/**
 * Probes for load balancers and orchestrators, outside /api (no key, no rate limit, not in the
 * OpenAPI document). `/health`: the process answers (liveness; never touches the database, so
 * a database outage does not get every instance restarted). `/ready`: this instance can serve
 * (database reachable, every migration this build ships applied); 503 otherwise.
 */
export async function healthRoutes(app: FastifyInstance, options: { orm: Orm }): Promise<void> {
  app.get('/health', async (_request, reply) =>
    reply.header('content-type', JSON_TYPE).send({ success: true, data: { status: 'ok' } }),
  );
  app.get('/ready', async (request, reply) => {
    const problem = await databaseNotReady(options.orm);
    reply.header('content-type', JSON_TYPE);
    if (!problem) return reply.send({ success: true, data: { status: 'ready' } });
    request.log.warn({ problem }, 'not ready');
    const error = new AppError('NOT_READY', `Not ready: ${problem}`);
    return sendFailure(reply, { status: error.status, body: error.toBody() });
  });
}
