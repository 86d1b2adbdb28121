import { runProcess, startBackgroundParts } from './lifecycle/process.ts';

/**
 * `npm run worker`: job processing without HTTP, to scale workers apart from the API (run the
 * API with RUN_WORKER=false). Uses the same database as the server: DATABASE_URL, or the
 * embedded cluster (reused when the server already runs it).
 */
await runProcess('worker', async ({ config, logger, shutdown }) => {
  await startBackgroundParts({ config, logger, runWorker: true }, shutdown);
  // Stay up until a signal, even while no job timer is pending.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  shutdown.add('keep-alive', async () => clearInterval(keepAlive));
  logger.info('worker started');
});
