import { openDatabase } from '../db/database.ts';
import { startJobQueue } from '../jobs/job-queue.ts';
import { runProcess } from '../lifecycle/process.ts';

/**
 * `npm run -w @pis/server migrate` (in Docker: the one-shot `migrate` service): applies the
 * committed migrations and installs or upgrades pg-boss's schema and queues, then exits. Run it
 * as the role that owns the schemas; the service itself then runs as a role that owns none,
 * with MIGRATE_ON_START=false (docker/postgres/init-roles.sh sets both roles up).
 */
await runProcess('migration', async ({ config, logger, shutdown }) => {
  const database = await openDatabase(config, logger, { migrate: true, poolMax: 1 });
  shutdown.add('database', () => database.close());
  const queue = await startJobQueue({
    databaseUrl: database.url,
    logger,
    worker: false,
    migrate: true,
    poolMax: 1,
  });
  await queue.stop({ graceful: false });
  await shutdown.run();
  logger.info('migrations applied; pg-boss schema and queues installed');
});
