import type { Orm } from '../../src/db/orm.ts';
import type { MailMessage, MailOutbox, MailPurpose } from '../../src/mail/mail-message.ts';
import type { DashboardBrowser } from '../dashboard/dashboard-browser.ts';

/** An outbox that keeps what the service queued, for the account tests to read. */
export function recordingOutbox() {
  const sent: { purpose: MailPurpose; message: MailMessage }[] = [];
  const outbox: MailOutbox = {
    queue: async (purpose, message) => {
      sent.push({ purpose, message });
    },
  };
  const mailsTo = (to: string, purpose: MailPurpose) =>
    sent.filter((mail) => mail.message.to === to && mail.purpose === purpose);
  return { sent, outbox, mailsTo };
}

/** A new organization's owner in `owner`, with the address verified (invitations wait for it). */
export async function verifiedOwner(owner: DashboardBrowser, orm: Orm, signUp: Record<string, unknown> = {}) {
  const session = await owner.signUp(signUp);
  await orm.em
    .fork()
    .getConnection()
    .execute('update dashboard_user set email_verified_at = now() where id = ?', [session.user.id]);
  return { owner, session };
}
