import { inject } from 'vitest';

interface InboxMail {
  subject: string;
  text: string;
  to: { address: string }[];
  date: string;
}

/**
 * The newest mail to `to` whose subject is `subject`, read from MailDev's REST API (the inbox
 * `npm start` runs without SMTP_URL), polling while the worker sends it.
 */
export async function mailTo(to: string, subject: string, timeoutMs = 30_000): Promise<InboxMail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await fetch(`${inject('mailInboxUrl')}/api/email`);
    if (response.ok) {
      const mails = (await response.json()) as InboxMail[];
      const found = mails
        .filter((mail) => mail.subject === subject && mail.to.some((address) => address.address === to))
        .at(-1);
      if (found) return found;
    }
    if (Date.now() > deadline) throw new Error(`no "${subject}" mail to ${to} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The link with a token in a mail's text. */
export const linkIn = (mail: InboxMail): string => {
  const match = /(https?:\/\/\S+#token=[A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no token link in "${mail.subject}"`);
  return match[1];
};
