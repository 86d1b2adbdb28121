import { buildApp } from './app.ts';
import { systemClock } from './clock.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startBackground } from './lifecycle/background.ts';
import { GracefulShutdown } from './lifecycle/graceful-shutdown.ts';
import { createLogger } from './logger.ts';
import { createDemoOrganizationIfEmpty } from './organizations/demo-organization.ts';

/** `npm start`: the API (and, unless RUN_WORKER=false, the job worker) in one process. */

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
// Installed before anything starts, so Ctrl-C during start-up still stops the embedded cluster.
shutdown.installSignalHandlers();

try {
  const database = await openDatabase(config, logger);
  shutdown.add('database', () => database.close());

  // Only the embedded database is seeded: a real one is the operator's to fill (via the CLI).
  const demo = database.cluster
    ? await createDemoOrganizationIfEmpty(database.orm.em.fork(), systemClock)
    : undefined;

  const background = await startBackground({
    config,
    orm: database.orm,
    databaseUrl: database.url,
    clock: systemClock,
    logger,
    runWorker: config.runWorker,
  });
  shutdown.add('background', () => background.stop());

  const app = await buildApp({
    config,
    orm: database.orm,
    clock: systemClock,
    logger,
    scheduler: background.scheduler,
  });
  shutdown.add('http', () => app.close());
  await app.listen({ port: config.port, host: config.host });

  // Since the process started, module loading included.
  const seconds = process.uptime().toFixed(1);
  const url = config.publicBaseUrl;
  const lines = [
    '',
    `Payment Initiation Service ready in ${seconds} s (listening on ${config.host}:${config.port})`,
    `  ${url}           web`,
    `  ${url}/docs      API reference`,
    `  ${url}/api       REST API (OpenAPI: ${url}/api/openapi.json)`,
    database.cluster
      ? `  database: embedded Postgres in ${config.embeddedPgDir}`
      : '  database: DATABASE_URL',
  ];
  if (demo) {
    lines.push(
      '',
      `Created a demo organization (${demo.organizationId}) with a read+write API key.`,
      'The key is shown only this once:',
      '',
      `  ${demo.apiKey}`,
      '',
      'Try:',
      `  curl -H "x-api-key: ${demo.apiKey}" ${url}/api/banks`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
} catch (error) {
  logger.fatal({ err: error }, 'start failed');
  process.stderr.write(`\nCould not start: ${error instanceof Error ? error.message : String(error)}\n`);
  await shutdown.run();
  process.exit(1);
}
