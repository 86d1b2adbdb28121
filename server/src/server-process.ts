import { createDemoOrganizationIfEmpty, demoBanner } from './cli/demo-organization.ts';
import { startBanner } from './cli/start-banner.ts';
import { runProcess, startServiceParts } from './lifecycle/process.ts';
import { startDevInbox } from './mail/dev-inbox.ts';

/** `npm start` (main.ts, once its memory settings are applied): the API (and, unless RUN_WORKER=false, the job worker) in one process. */

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
      mailInbox: inbox
        ? `${inbox.webUrl}   (MailDev: all mail sent; no SMTP_URL)`
        : config.mail.smtpUrl
          ? 'none here: mail goes out through SMTP_URL'
          : 'none: MailDev did not start (see the warning above)',
      demo,
      embedded: Boolean(database.cluster),
    }),
  );
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
