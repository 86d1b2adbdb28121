import { userInfo } from 'node:os';
import { AppError } from '@pis/shared';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { consumeRateLimit } from '../rate-limits/rate-limit-store.ts';
import { maskValue } from './masking.ts';
import { signInFailures } from './metrics.ts';

/**
 * Who did what (issue 20, item 4): key created and revoked, sign-in, sign-out and failed
 * sign-in, settings changed, payments cancelled, approved or rejected from the dashboard, the
 * operator CLI's actions. Rows are append-only in the database itself (a trigger refuses every
 * UPDATE, DELETE and TRUNCATE, see the migration), and nothing in the service offers to change
 * one: the dashboard only lists them.
 */

export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'session.signed_in',
  'session.signed_out',
  'session.sign_in_failed',
  'session.signed_out_everywhere',
  'session.identity_confirmed',
  'session.mode_changed',
  'account.password_changed',
  'account.password_reset',
  'account.email_changed',
  'settings.changed',
  'payment.cancelled',
  'payment.approved',
  'payment.rejected',
  'payment.clock_advanced',
  'payment.link_sent',
  'operator.command',
  'team.invited',
  'team.invitation_withdrawn',
  'team.joined',
  'team.role_changed',
  'team.member_removed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditActor =
  /** A dashboard user, by email (what the merchant's people recognise). */
  | { type: 'user'; id: string }
  | { type: 'api_key'; id: string }
  /** The operator CLI: `cli` plus the OS user when known. */
  | { type: 'operator'; id: string };

export interface AuditEntry {
  organizationId: string | null;
  actor: AuditActor;
  action: AuditAction;
  /** What was acted on: a key id, a payment id, a setting's name. */
  target?: string | null | undefined;
  /** A few facts, masked like request bodies (never a secret or a password). */
  details?: Record<string, unknown> | undefined;
}

/**
 * Appends one entry, in the caller's transaction when `em` is one (the entry then exists
 * exactly when the action does). Outside one, a failure to record is logged, never thrown:
 * the action already happened and the merchant must not see it fail.
 */
export async function recordAudit(em: EntityManager, entry: AuditEntry, logger?: Logger): Promise<void> {
  const insert = em.execute(
    `insert into audit_log (organization_id, actor_type, actor, action, target, details)
      values (?, ?, ?, ?, ?, ?::jsonb)`,
    [
      entry.organizationId,
      entry.actor.type,
      entry.actor.id.slice(0, 255),
      entry.action,
      entry.target?.slice(0, 100) ?? null,
      entry.details ? JSON.stringify(maskValue(entry.details)) : null,
    ],
    'run',
  );
  if (!logger) {
    await insert;
    return;
  }
  await insert.catch((error: unknown) =>
    logger.error({ err: error, action: entry.action }, 'audit entry could not be recorded'),
  );
}

/**
 * The CLI's entry for a command that changed something (`*:list` reads nothing): the command
 * and its arguments, a `--password` value dropped and any key cut to its prefix (maskValue).
 */
export function operatorAuditEntry(argv: readonly string[], result: unknown): AuditEntry | undefined {
  const [command, ...rest] = argv;
  if (!command || command.endsWith(':list')) return undefined;
  const args: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] as string;
    if (/^--password(=|$)/.test(arg)) {
      args.push('--password', '[masked]');
      if (!arg.includes('=')) index++;
    } else {
      args.push(arg);
    }
  }
  const orgIndex = rest.indexOf('--org');
  const fromArgs = orgIndex >= 0 ? rest[orgIndex + 1] : undefined;
  const fromResult = (result as { organizationId?: unknown } | null)?.organizationId;
  const organizationId = typeof fromResult === 'string' ? fromResult : (fromArgs ?? null);
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (a container's arbitrary uid)
  }
  return {
    organizationId: organizationId?.slice(0, 40) ?? null,
    actor: { type: 'operator', id: `cli:${user}` },
    action: 'operator.command',
    target: command.slice(0, 100),
    details: { arguments: args },
  };
}

/** What a signed-in dashboard call offers to record an entry. */
export interface AuditContext {
  em: EntityManager;
  log: Logger;
  session: { email: string };
  caller: { organizationId: string };
}

/**
 * Runs a dashboard action and records it once it succeeded, as the signed-in user, for their
 * organization. A refused action (validation, not found, a conflict) changed nothing: no entry.
 */
type AuditFacts = { action: AuditAction; target?: string | null; details?: Record<string, unknown> };

export async function audited<T>(
  ctx: AuditContext,
  entry: AuditFacts | ((result: T) => AuditFacts),
  run: () => Promise<T>,
): Promise<T> {
  const result = await run();
  await recordAudit(
    ctx.em.fork(),
    {
      organizationId: ctx.caller.organizationId,
      actor: { type: 'user', id: ctx.session.email },
      ...(typeof entry === 'function' ? entry(result) : entry),
    },
    ctx.log,
  );
  return result;
}

/**
 * A sign-in, recorded either way it went for a member of an organization: signed in (as the
 * user), or failed (the email as typed, for the organization that has a user with that email;
 * never the password). What an anonymous stranger does grows no table (issue 31 item 4): a
 * sign-in the throttle refused writes nothing, and a failure for an address that is no
 * account's is counted (`pis_sign_in_failures_total{account="unknown"}`), not audited.
 */
/** Failed sign-ins audited per account in 15 minutes (the throttle's 10 guesses of one address). */
export const FAILED_SIGN_INS_AUDITED = 10;

export async function auditedSignIn<T extends { organization: { id: string } } | { twoStepRequired: true }>(
  ctx: { em: EntityManager; log: Logger },
  email: string,
  run: () => Promise<T>,
): Promise<T> {
  let session: T;
  try {
    session = await run();
  } catch (error) {
    if (error instanceof AppError && error.kind === 'RATE_LIMITED') {
      signInFailures.inc({ account: 'throttled' });
      throw error;
    }
    const [user] = await ctx.em
      .fork()
      .execute<{ organization_id: string }[]>(
        'select organization_id from dashboard_user where lower(email) = lower(?) limit 1',
        [email.slice(0, 254)],
      )
      .catch(() => []);
    signInFailures.inc({ account: user ? 'known' : 'unknown' });
    if (!user) throw error;
    // Strangers from many addresses (IPv6 /64s are cheap) each get the throttle's guesses: the
    // account's audit rows are bounded per account too; the rest are counted above.
    const audited = await consumeRateLimit(ctx.em.fork(), {
      key: `audit-sign-in-failed:${email.slice(0, 254).toLowerCase()}`,
      limit: FAILED_SIGN_INS_AUDITED,
      windowSeconds: 15 * 60,
    }).catch(() => ({ allowed: true }));
    if (!audited.allowed) throw error;
    await recordAudit(
      ctx.em.fork(),
      {
        organizationId: user.organization_id,
        actor: { type: 'user', id: email },
        action: 'session.sign_in_failed',
      },
      ctx.log,
    );
    throw error;
  }
  // The password alone signs nobody in when two-step is on: the code's step records the sign-in.
  if (!('organization' in session)) return session;
  await recordAudit(
    ctx.em.fork(),
    {
      organizationId: session.organization.id,
      actor: { type: 'user', id: email },
      action: 'session.signed_in',
    },
    ctx.log,
  );
  return session;
}
