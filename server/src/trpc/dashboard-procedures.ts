import { AppError } from '@pis/shared';
import { type RolePermission, requireRole } from '../accounts/roles.ts';
import {
  type ActiveSession,
  authenticateSession,
  csrfTokenMatches,
  requireRecentSignIn,
} from '../accounts/sessions.ts';
import { budgetOf } from '../rate-limits/organization-budgets.ts';
import { consumeRateLimit } from '../rate-limits/rate-limit-store.ts';
import { answerRateLimit, enforceRateLimit, rateLimitKey } from '../rate-limits/rate-limits.ts';
import type { Context } from './context.ts';
import { publicProcedure, storableInput } from './trpc.ts';

/**
 * Procedure builders of the merchant dashboard (/trpc `dashboard.*`; never /api: no openapi meta).
 *
 * CSRF: the session cookie is SameSite=Lax, and every mutation must also carry the
 * `x-csrf-token` header. A cross-site page can neither read the token nor set a custom header
 * without a CORS preflight, which this service never grants. Signed-in mutations compare the
 * header with the session's own token; sign-up and sign-in (no session yet) need the header
 * present, which is what stops a cross-site form from signing a browser in.
 */

export const csrfRefused = () =>
  new AppError('FORBIDDEN', 'Missing or invalid CSRF token: reload the page and try again');

const twoStepMissing = () =>
  new AppError(
    'FORBIDDEN',
    'Your organization requires two-step verification: set it up in Settings, under "Two-step verification"',
  );

/**
 * What every signed-in dashboard call passes once its session is proven (the procedures below and
 * the CSV export's plain route): the organization's two-step requirement (until this user has set
 * it up, only their own account's calls answer: Settings, sign out), and the organization's
 * budget (across its sessions and members: a session could otherwise batch reads and waits
 * without end, and sessions are free to make).
 */
export async function admitDashboardCall(
  ctx: Pick<Context, 'em' | 'config' | 'setHeader'>,
  session: ActiveSession,
  { ownAccount = false }: { ownAccount?: boolean } = {},
): Promise<void> {
  if (session.twoStepMissing && !ownAccount) throw twoStepMissing();
  await enforceRateLimit(ctx.em, ctx.config.rateLimits, ctx.setHeader, 'dashboard', session.organization.id);
}

/** Sign-up and sign-in. */
export const anonymousMutation = publicProcedure
  .use(async ({ ctx, next }) => {
    if (!ctx.dashboard.csrfHeader()) throw csrfRefused();
    return next();
  })
  .use(storableInput);

/**
 * A signed-in user's calls: the session is checked (idle and absolute expiry, an active
 * organization) before the input is parsed. Context gains `session` and `caller` (the user's
 * organization, scoped exactly like an API key's).
 */
const signedInTo = (organizations: 'active' | 'any') =>
  publicProcedure.use(async ({ ctx, path, next }) => {
    const session = await authenticateSession(ctx.em, ctx.dashboard, ctx.clock, {
      anyOrganization: organizations === 'any',
    });
    await admitDashboardCall(ctx, session, { ownAccount: path.startsWith('dashboard.account.') });
    return next({
      ctx: {
        session,
        caller: {
          organizationId: session.organization.id,
          approvedProviders: session.organization.approvedProviders,
          mode: session.mode,
          // Named on the history entries this member's actions make.
          actor: { type: 'member' as const, name: session.email },
          budgets: session.budgets,
        },
      },
    });
  });

const signedIn = signedInTo('active');

export const sessionQuery = signedIn.use(storableInput);

/** State-changing calls: the CSRF header must match the session's token, checked before the input. */
const withCsrfCheck = (builder: ReturnType<typeof signedInTo>) =>
  builder
    .use(async ({ ctx, next }) => {
      if (!csrfTokenMatches(ctx.session, ctx.dashboard.csrfHeader())) throw csrfRefused();
      return next();
    })
    .use(storableInput);

/**
 * A member's role, checked before the input (accounts/roles.ts): every state-changing call but a
 * member's own account's needs one, so a Viewer calling a write procedure directly gets 403.
 */
const withRole = (permission: RolePermission) =>
  withCsrfCheck(signedIn).use(async ({ ctx, next }) => {
    requireRole(ctx.session.role, permission);
    return next();
  });

/** Changes to the organization's keys, payments and settings: Owner and Developer. */
export const sessionMutation = withRole('write');
/** A payment's cancel, approve/reject in the sandbox, a new customer link: also Support. */
export const supportMutation = withRole('support');
/** Adds the organization's API write budget (its reduced share for a self-serve sign-up) to a builder. */
export const withPaymentWriteBudget = <B extends typeof sessionMutation>(builder: B) =>
  builder.use(async ({ ctx, next }) => {
    const limits = ctx.config.rateLimits;
    if (limits.enabled) {
      const limit = budgetOf(limits, ctx.session.budgets, 'api-write');
      const counted = await consumeRateLimit(ctx.em, {
        key: `${rateLimitKey('api-write', '')}${ctx.session.organization.id}`,
        limit,
        windowSeconds: limits.windowSeconds,
      });
      answerRateLimit(limits, ctx.setHeader, 'api-write', counted);
    }
    return next();
  });

/** The team and its rules: Owner only. */
const teamMutation = withRole('team');
/** On a session signed in over 15 minutes ago, only after "Confirm it's you" (accounts/sessions.ts). */
export const withRecentSignIn = <B extends typeof sessionMutation>(builder: B) =>
  builder.use(async ({ ctx, next }) => {
    requireRecentSignIn(ctx.session, ctx.clock.now());
    return next();
  });
/** A change to who is on the team or how they sign in: Owner only, and a recent sign-in. */
export const teamChange = withRecentSignIn(teamMutation);
/** The member's own account (password, email, two-step, sessions): every role. */
export const accountMutation = withCsrfCheck(signedIn);

/**
 * Sign-out: also for a suspended organization's user, whose every other call is refused; else
 * the session would live on (and work again if the organization came back).
 */
export const signOutMutation = withCsrfCheck(signedInTo('any'));
