import http from 'node:http';
import type { Logger } from '../logger.ts';
import { metricsRegistry } from './metrics.ts';

export interface MetricsServer {
  /** The bound port (METRICS_PORT=0 picks a free one: tests). */
  port: number;
  close(): Promise<void>;
}

/**
 * `GET /metrics` in Prometheus' text format on a listener of its own: never on the public
 * port, loopback unless METRICS_HOST says otherwise (a scrape shows the process's internals).
 * Plain node:http, not the app: a scrape never queues behind API requests' hooks, and an API
 * overload does not hide the metrics that would explain it.
 */
export async function startMetricsServer(options: {
  host: string;
  port: number;
  logger: Logger;
}): Promise<MetricsServer> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    metricsRegistry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text),
      (error: unknown) => {
        options.logger.error({ err: error }, 'metrics scrape could not be collected');
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  options.logger.info({ host: options.host, port }, 'metrics listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
