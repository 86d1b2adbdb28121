import path from 'node:path';
import type { MailConfig } from '../config.ts';
import type { Logger } from '../logger.ts';

export interface DevInbox {
  /** Where the service sends (MailDev's SMTP on loopback). */
  smtpUrl: string;
  /** MailDev's web inbox, printed by `npm start`. */
  webUrl: string;
  stop(): Promise<void>;
}

/**
 * Without SMTP_URL, `npm start` runs MailDev (a development dependency, loaded only here) on
 * loopback beside the service, so a newcomer reads every account mail in a browser. Loopback
 * only, for SMTP and web alike: the inbox holds reset links. Mail is kept under `.data/maildev`.
 */
export async function startDevInbox(config: MailConfig, dataDir: string, logger: Logger): Promise<DevInbox> {
  let MailDev: typeof import('maildev').MailDev;
  try {
    ({ MailDev } = await import('maildev'));
  } catch {
    throw new Error(
      'SMTP_URL is not set and MailDev (a development dependency) is not installed: set SMTP_URL, or install with `npm ci`',
    );
  }
  const { smtpPort, webPort } = config.devInbox;
  const inbox = new MailDev({
    smtp: smtpPort,
    web: webPort,
    ip: '127.0.0.1',
    webIp: '127.0.0.1',
    mailDirectory: path.join(dataDir, 'maildev'),
    silent: true,
  });
  await inbox.start();
  logger.info({ smtpPort, webPort }, 'MailDev started (no SMTP_URL)');
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    // The root, which a browser (Accept: text/html) is answered with the inbox page carrying the
    // `<base href="/">` its script builds the API's address from. Its `/index.html` is the bare
    // file without it: the page there loads but shows "Failed to load emails" (issue 34 item 1).
    webUrl: `http://127.0.0.1:${webPort}/`,
    stop: () => inbox.stop(),
  };
}
