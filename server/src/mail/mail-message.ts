import { z } from 'zod';

/** No header of ours may carry a line break: CR/LF in a subject or address would add headers. */
const ONE_LINE = /^[^\r\n]*$/;

/** One rendered mail, as the job carries it (jobs/mail-jobs.ts): plain text and HTML. */
export const MailMessage = z.object({
  to: z.email().max(254).regex(ONE_LINE),
  subject: z.string().min(1).max(200).regex(ONE_LINE),
  text: z.string().min(1).max(20_000),
  html: z.string().min(1).max(50_000),
});
export type MailMessage = z.infer<typeof MailMessage>;

/** A mail waiting to be sent: its delivery row and its message (the `mail.send` job's payload). */
export const QueuedMail = z.object({ deliveryId: z.string().min(1).max(40), message: MailMessage });
export type QueuedMail = z.infer<typeof QueuedMail>;

/** What a mail is for: kept with its delivery row, so an operator sees which mails failed. */
export const MailPurpose = z.enum([
  'verify-email',
  'password-reset',
  'password-changed',
  'email-changed',
  'two-step-changed',
  'invitation',
]);
export type MailPurpose = z.infer<typeof MailPurpose>;

/**
 * Hands a mail to the background (a pg-boss job, retried): a request never waits for SMTP.
 * Resolves once the mail is queued.
 */
export interface MailOutbox {
  queue(purpose: MailPurpose, message: MailMessage): Promise<void>;
}

/** For processes and tests that send no mail: dropped. */
export const noMailOutbox: MailOutbox = { queue: async () => {} };
