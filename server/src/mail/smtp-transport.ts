import type { Transporter } from 'nodemailer';
import type { MailConfig } from '../config.ts';
import type { MailMessage } from './mail-message.ts';

export interface MailSender {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * nodemailer over SMTP to `SMTP_URL` (pooled: a burst of mails shares a few connections).
 * Without a URL every send fails, so the mail is retried and, in the end, shown as failed to
 * the operator rather than silently dropped.
 */
export function smtpMailSender(config: MailConfig): MailSender {
  if (!config.smtpUrl) {
    return {
      send: async () => {
        throw new Error('SMTP_URL is not set: no mail can be sent');
      },
      close: () => {},
    };
  }
  // nodemailer is loaded with the first mail (~6 MB of heap a process without mail never needs).
  let transport: Promise<Transporter> | undefined;
  const open = async () => {
    const { default: nodemailer } = await import('nodemailer');
    return nodemailer.createTransport(
      // A loopback catcher (MailDev, a test's smtp-server) speaks no TLS.
      {
        url: config.smtpUrl,
        pool: true,
        maxConnections: 3,
        connectionTimeout: 10_000,
        socketTimeout: 20_000,
      },
      { from: config.from },
    );
  };
  return {
    send: async (message) => {
      transport ??= open();
      await (await transport).sendMail({ ...message, disableFileAccess: true, disableUrlAccess: true });
    },
    close: () => void transport?.then((opened) => opened.close()),
  };
}
