import { runProcess, startServiceParts } from './lifecycle/process.ts';
import { startDevInbox } from './mail/dev-inbox.ts';
import { createDemoOrganizationIfEmpty, demoBanner } from './organizations/demo-organization.ts';

/** `npm start`: the API (and, unless RUN_WORKER=false, the job worker) in one process. */

await runProcess('server', async ({ config: loaded, logger, shutdown }) => {
  // No SMTP_URL: MailDev on loopback takes the mail, and its inbox is printed below.
  // A MailDev that cannot start (its port taken by another checkout's) is not fatal: the mail
  // then fails and shows up in `mail:failures`, and the warning says how to fix it.
  const inbox = loaded.mail.smtpUrl
    ? undefined
    : await startDevInbox(loaded.mail, loaded.dataDir, logger).catch((error: unknown) => {
        logger.warn(
          { err: error },
          'MailDev did not start: set SMTP_URL, or free MAILDEV_SMTP_PORT/MAILDEV_WEB_PORT (mail cannot be sent until then)',
        );
        return undefined;
      });
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
      : config.mail.smtpUrl
        ? '  mail: SMTP_URL'
        : '  mail: not sent (MailDev did not start: see the warning above)',
  ];
  if (demo) lines.push('', ...demoBanner(demo, url));
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
