import { systemClock } from './clock.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startBackground } from './lifecycle/background.ts';
import { GracefulShutdown } from './lifecycle/graceful-shutdown.ts';
import { createLogger } from './logger.ts';

/**
 * `npm run worker`: job processing without HTTP, to scale workers apart from the API (run the
 * API with RUN_WORKER=false). Uses the same database as the server: DATABASE_URL, or the
 * embedded cluster (reused when the server already runs it).
 */
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

const logger = createLogger(config.logLevel);
const shutdown = new GracefulShutdown(logger);
shutdown.installSignalHandlers();

try {
  const database = await openDatabase(config, logger);
  shutdown.add('database', () => database.close());
  const background = await startBackground({
    config,
    orm: database.orm,
    databaseUrl: database.url,
    clock: systemClock,
    logger,
    runWorker: true,
  });
  shutdown.add('background', () => background.stop());
  // Stay up until a signal, even while no job timer is pending.
  const keepAlive = setInterval(() => {}, 2 ** 30);
  shutdown.add('keep-alive', async () => clearInterval(keepAlive));
  logger.info('worker started');
} catch (error) {
  logger.fatal({ err: error }, 'worker start failed');
  process.stderr.write(
    `\nCould not start the worker: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  await shutdown.run();
  process.exit(1);
}
