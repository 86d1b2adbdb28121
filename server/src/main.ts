import { createDemoOrganizationIfEmpty, demoBanner } from './cli/demo-organization.ts';
import { startBanner } from './cli/start-banner.ts';
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

  const url = config.publicBaseUrl;
  const lines = [
    '',
    database.cluster ? `database: embedded Postgres in ${config.embeddedPgDir}` : 'database: DATABASE_URL',
  ];
  if (demo) lines.push('', ...demoBanner(demo, url));
  lines.push(
    '',
    startBanner({
      publicBaseUrl: url,
      // Since the process started, module loading included.
      seconds: process.uptime().toFixed(1),
      listening: `${config.host}:${config.port}`,
      mailInbox: null,
      demo,
      embedded: Boolean(database.cluster),
    }),
  );
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
