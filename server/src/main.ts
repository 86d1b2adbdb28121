import { createDemoOrganizationIfEmpty, demoBanner } from './cli/demo-organization.ts';
import { runProcess, startServiceParts } from './lifecycle/process.ts';

/** `npm start`: the API (and, unless RUN_WORKER=false, the job worker) in one process. */

await runProcess('server', async ({ config, logger, shutdown }) => {
  const { database, app, clock } = await startServiceParts(
    { config, logger, runWorker: config.runWorker },
    shutdown,
  );
  // Only the embedded database is seeded: a real one is the operator's to fill (via the CLI).
  const demo = database.cluster
    ? await createDemoOrganizationIfEmpty(database.orm.em.fork(), clock)
    : undefined;
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
  if (demo) lines.push('', ...demoBanner(demo, url));
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
