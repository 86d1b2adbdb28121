import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import type { MailOutbox } from '../mail/mail-message.ts';

/** What the account lifecycle needs: the database, time, the mail outbox and our origin for links. */
export interface AccountDeps {
  em: EntityManager;
  clock: Clock;
  mail: MailOutbox;
  /** Links in mail point here (`/dashboard/...#token=`). */
  publicBaseUrl: string;
  log: Logger;
}

/** From a request context. */
export const accountDeps = (ctx: {
  em: EntityManager;
  clock: Clock;
  log: Logger;
  config: { publicBaseUrl: string };
  services: { mail: MailOutbox };
}): AccountDeps => ({
  em: ctx.em,
  clock: ctx.clock,
  mail: ctx.services.mail,
  publicBaseUrl: ctx.config.publicBaseUrl,
  log: ctx.log,
});

/**
 * A dashboard link carrying a token in its fragment: the fragment never reaches a server (ours
 * or a proxy's log) nor a Referer header.
 */
export const tokenLink = (deps: AccountDeps, page: string, token: string) =>
  `${deps.publicBaseUrl}/dashboard/${page}#token=${token}`;
