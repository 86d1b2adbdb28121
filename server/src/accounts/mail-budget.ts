import { AppError } from '@pis/shared';
import type { EntityManager } from '../db/orm.ts';
import { consumeRateLimit } from '../rate-limits/rate-limit-store.ts';
import { emailKey } from './users.ts';

/**
 * Mail a member can make the service send to an address they choose (a verification link, an
 * invitation) is budgeted, so a free sign-up cannot use our domain to spray mail (issue 31
 * item 5): per recipient address, per member and per organization, in the shared store so every
 * instance counts together. The reset form has its own budget (account-lifecycle.ts).
 */
export const ACCOUNT_MAIL_LIMITS = {
  toAddressPerHour: 5,
  perMemberPerHour: 10,
  perOrganizationPerDay: 50,
} as const;

const HOUR = 60 * 60;

/** Who asks for the mail and to whom it goes. */
export interface AccountMail {
  userId: string;
  organizationId: string;
  to: string;
}

/** Counts one mail against each budget; refused past any, with the seconds until the earliest one frees. */
export async function spendAccountMail(
  em: EntityManager,
  mail: AccountMail,
): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }> {
  const results = await Promise.all([
    consumeRateLimit(em.fork(), {
      key: `account-mail:to:${emailKey(mail.to)}`,
      limit: ACCOUNT_MAIL_LIMITS.toAddressPerHour,
      windowSeconds: HOUR,
    }),
    consumeRateLimit(em.fork(), {
      key: `account-mail:member:${mail.userId}`,
      limit: ACCOUNT_MAIL_LIMITS.perMemberPerHour,
      windowSeconds: HOUR,
    }),
    consumeRateLimit(em.fork(), {
      key: `account-mail:organization:${mail.organizationId}`,
      limit: ACCOUNT_MAIL_LIMITS.perOrganizationPerDay,
      windowSeconds: 24 * HOUR,
    }),
  ]);
  const refused = results.filter((result) => !result.allowed);
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(...refused.map((result) => result.resetSeconds)) };
}

/** As spendAccountMail, refusing with 429 RATE_LIMITED (and when to try again) past a budget. */
export async function requireAccountMail(
  em: EntityManager,
  mail: AccountMail,
  setHeader?: (name: string, value: string) => void,
): Promise<void> {
  const spent = await spendAccountMail(em, mail);
  if (spent.allowed) return;
  setHeader?.('retry-after', String(spent.retryAfterSeconds));
  const minutes = Math.max(1, Math.ceil(spent.retryAfterSeconds / 60));
  throw new AppError(
    'RATE_LIMITED',
    `Too many account mails from this account or to this address: try again in ${minutes} minute${minutes === 1 ? '' : 's'}`,
  );
}

/** Notices to one unverified address an hour (their own budget: see mayNotify). */
export const NOTICES_TO_UNVERIFIED_PER_HOUR = 5;

/**
 * Whether a notice about the account (password, email or two-step changed) goes to its address.
 * To an address the account proved it holds, always: the notice is the owner's alarm, and it
 * must not share a budget something else can spend first (a stolen session resending
 * verification mail until the budget is gone, then setting up its own second factor in silence:
 * the second review of issue 31). To an unverified one (a stranger may have signed up with
 * someone's address, then changed the password in a loop) at most a few an hour, on a budget of
 * its own. The change itself is made either way.
 */
export async function mayNotify(
  em: EntityManager,
  account: { to: string; verified: boolean },
): Promise<boolean> {
  if (account.verified) return true;
  const spent = await consumeRateLimit(em.fork(), {
    key: `account-notice:to:${emailKey(account.to)}`,
    limit: NOTICES_TO_UNVERIFIED_PER_HOUR,
    windowSeconds: HOUR,
  });
  return spent.allowed;
}
