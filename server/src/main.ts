import { runProcess, startServiceParts } from './lifecycle/process.ts';
import { startDevInbox } from './mail/dev-inbox.ts';
import { createDemoOrganizationIfEmpty, demoBanner } from './organizations/demo-organization.ts';

/** `npm start`: the API (and, unless RUN_WORKER=false, the job worker) in one process. */

await runProcess('server', async ({ config: loaded, logger, shutdown }) => {
  // No SMTP_URL: MailDev on loopback takes the mail, and its inbox is printed below.
  const inbox = loaded.mail.smtpUrl ? undefined : await startDevInbox(loaded.mail, loaded.dataDir, logger);
  if (inbox) shutdown.add('mail inbox', () => inbox.stop());
  const config = inbox ? { ...loaded, mail: { ...loaded.mail, smtpUrl: inbox.smtpUrl } } : loaded;
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
    inbox
      ? `  mail: ${inbox.webUrl}   (MailDev inbox: every mail the service sends, as no SMTP_URL is set)`
      : '  mail: SMTP_URL',
  ];
  if (demo) lines.push('', ...demoBanner(demo, url));
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
