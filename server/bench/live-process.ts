import { createInterface } from 'node:readline';
import { startService } from './service.ts';

/**
 * The second process of the live-reads bench (bench/live-reads.ts): the service (API only: the
 * first process works the queues) on the same database. Prints `LISTENING <url>`, then answers
 * `stats` on stdin with its memory (after a collection) and its open waits (`count`: no collection).
 */
const [databaseUrl, dataDir] = process.argv.slice(2) as [string, string];
// It holds the memory measure's 10,000 waiting clients besides the sockets earlier loads left open:
// past MAX_CONNECTIONS (10,000 by default) Node would close the newest at once.
const service = await startService(databaseUrl, dataDir, {
  runWorker: false,
  env: { MAX_CONNECTIONS: '20000' },
});
const url = await service.app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`LISTENING ${url}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'stats' || line === 'count') {
    // A full collection only for a memory reading: polled every 50 ms it would be the load.
    if (line === 'stats') (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    process.stdout.write(`STATS ${JSON.stringify({ rss, heapUsed, waiting: service.waiters.waiting })}\n`);
  }
  if (line === 'stop') break;
}
await service.close();
process.exit(0);
