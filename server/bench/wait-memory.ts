import { measureMemory, startSecondProcess } from './live-reads.ts';
import { startService } from './service.ts';
import { startThrowawayCluster } from './throwaway-cluster.ts';

/**
 * The memory one waiting read costs a process (what WAITS_PER_PROCESS is sized from;
 * docs/decisions/044-organization-budgets.md): `npm run -w @pis/server bench:wait-memory -- [WAITERS...]`
 * (default 2000, the ceiling). A second process on a throwaway database holds the waits, so the
 * clients' own sockets are not counted; its RSS and heap are read after a full collection, before
 * and while all wait, over loopback HTTP with one socket per wait (as real clients have).
 * Rate limits are off in the measured process (the ceiling would stop it at 2,000).
 * Light enough for a shared machine (seconds), unlike `npm run bench`.
 */
const counts = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const throwaway = await startThrowawayCluster('wait-memory');
try {
  const databaseUrl = await throwaway.createDatabase('service');
  // Migrates and makes the merchant; the measured process serves the same database.
  const service = await startService(databaseUrl, throwaway.dir, { runWorker: false });
  const second = await startSecondProcess(databaseUrl, throwaway.dir);
  try {
    for (const waiters of counts.length > 0 ? counts : [2_000]) {
      const memory = await measureMemory(second, { 'x-api-key': service.apiKey }, databaseUrl, waiters);
      console.log(
        `${memory.waiters} waiting reads on one process: +${memory.rssMb} MB RSS, +${memory.heapMb} MB heap ` +
          `(~${memory.perWaiterKb} KB RSS each, socket, request and context included)`,
      );
    }
  } finally {
    await second.stop();
    await service.close();
  }
} finally {
  await throwaway.stop();
}
