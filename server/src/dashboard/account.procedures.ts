import {
  AcceptInvitationInput,
  AppError,
  ChangeEmailInput,
  ChangePasswordInput,
  ConfirmIdentityInput,
  DashboardSession,
  EmailChanged,
  EmailVerified,
  IdentityConfirmed,
  InvitationDetails,
  InvitationTokenInput,
  PasswordChanged,
  PasswordReset,
  PasswordResetRequested,
  RecoveryCodesRegenerated,
  RequestPasswordResetInput,
  RequireTwoStepInput,
  ResetPasswordInput,
  SetDashboardModeInput,
  SignedOut,
  SignedOutEverywhere,
  SignInCodeInput,
  SignInInput,
  SignUpInput,
  TwoStepChallenge,
  TwoStepConfirmInput,
  TwoStepEnabled,
  TwoStepReauthInput,
  TwoStepSetup,
  TwoStepStatus,
  TwoStepTurnedOff,
  VerificationSent,
  VerifyEmailInput,
  validationFailed,
} from '@pis/shared';
import { z } from 'zod';
import { accountDeps } from '../accounts/account-deps.ts';
import {
  changeEmail,
  changePassword,
  requestPasswordReset,
  resetPassword,
  sendVerification,
  signOutEverywhere,
  verifyEmail,
} from '../accounts/account-lifecycle.ts';
import { authenticateSession, endSession, setSessionMode } from '../accounts/sessions.ts';
import { signIn, signInWithCode } from '../accounts/sign-in.ts';
import { signUp } from '../accounts/sign-up.ts';
import { acceptInvitation, describeInvitation } from '../accounts/team.ts';
import {
  beginTwoStep,
  confirmIdentity,
  regenerateRecoveryCodes,
  setTwoStepRequired,
  turnOffTwoStep,
  turnOnTwoStep,
  twoStepStatus,
} from '../accounts/two-step.ts';
import { audited, auditedSignIn, recordAudit } from '../observability/audit-log.ts';
import { organizationSummary } from '../organizations/organization-summary.ts';
import {
  accountMutation,
  anonymousMutation,
  sessionQuery,
  signOutMutation,
  teamChange,
  withRecentSignIn,
} from '../trpc/dashboard-procedures.ts';
import { publicProcedure, router, storableInput } from '../trpc/trpc.ts';

/** Sign-up, sign-in, sign-out and "who am I" (with the CSRF token the page sends back). */
export const accountRouter = router({
  signUp: anonymousMutation
    .input(SignUpInput)
    .output(DashboardSession)
    .mutation(({ ctx, input }) => signUp(accountDeps(ctx), ctx.dashboard, ctx, input, ctx.config.rateLimits)),

  signIn: anonymousMutation
    .input(SignInInput)
    .output(z.union([DashboardSession, TwoStepChallenge]))
    .mutation(({ ctx, input }) =>
      auditedSignIn(ctx, input.email, () => signIn(ctx.em, ctx.dashboard, ctx, input, ctx.clock)),
    ),

  // Invitations (issue 24 item 5): accounts/team.ts. The page shows what is offered first.
  invitation: publicProcedure
    .use(storableInput)
    .input(InvitationTokenInput)
    .output(InvitationDetails)
    .query(({ ctx, input }) => describeInvitation(ctx.em, input.token, ctx.clock.now())),

  acceptInvitation: anonymousMutation
    .input(AcceptInvitationInput)
    .output(DashboardSession)
    .mutation(async ({ ctx, input }) => {
      // Someone signed in cannot take a link meant for another address into their browser's session.
      const signedIn = ctx.dashboard.sessionToken()
        ? await authenticateSession(ctx.em, ctx.dashboard, ctx.clock, { anyOrganization: true }).catch(
            () => undefined,
          )
        : undefined;
      if (signedIn) {
        throw new AppError(
          'FORBIDDEN',
          `You are signed in as ${signedIn.email}: sign out first to accept this invitation`,
        );
      }
      const accepted = await acceptInvitation(accountDeps(ctx), input.token, input.password);
      ctx.dashboard.setSessionCookie(accepted.session.token, accepted.session.expiresAt);
      const organization = await organizationSummary(ctx.em, accepted.organizationId);
      if (!organization) throw new Error('organization vanished after an invitation was accepted');
      const session = {
        user: { id: accepted.userId, email: accepted.email, emailVerified: true, role: accepted.role },
        organization,
        csrfToken: accepted.session.csrfToken,
        mode: 'test' as const,
      };
      await recordAudit(
        ctx.em.fork(),
        {
          organizationId: organization.id,
          actor: { type: 'user', id: accepted.email },
          action: 'team.joined',
          details: { role: accepted.role },
        },
        ctx.log,
      );
      return session;
    }),

  // Two-step verification (issue 24 item 4): accounts/two-step.ts.
  signInCode: anonymousMutation
    .input(SignInCodeInput)
    .output(DashboardSession)
    .mutation(async ({ ctx, input }) => {
      const { usedRecoveryCode, ...session } = await signInWithCode(
        ctx.em,
        ctx.dashboard,
        ctx,
        input,
        ctx.clock,
      );
      await recordAudit(
        ctx.em.fork(),
        {
          organizationId: session.organization.id,
          actor: { type: 'user', id: session.user.email },
          action: 'session.signed_in',
          details: { twoStep: usedRecoveryCode ? 'recovery-code' : 'app' },
        },
        ctx.log,
      );
      return session;
    }),

  twoStep: sessionQuery
    .input(z.void())
    .output(TwoStepStatus)
    .query(({ ctx }) => twoStepStatus(ctx.em, ctx.session.userId)),

  // A lasting second factor: not from a session signed in long ago (a stolen one could set up its own).
  beginTwoStep: withRecentSignIn(accountMutation)
    .input(z.void())
    .output(TwoStepSetup)
    .mutation(({ ctx }) => beginTwoStep(ctx.em, ctx.session.userId)),

  confirmTwoStep: accountMutation
    .input(TwoStepConfirmInput)
    .output(TwoStepEnabled)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'settings.changed', target: 'twoStep', details: { enabled: true } }, () =>
        turnOnTwoStep(accountDeps(ctx), ctx.session, input.code),
      ),
    ),

  // Both after the password and a code; audited without a code (the result's codes stay out).
  regenerateRecoveryCodes: accountMutation
    .input(TwoStepReauthInput)
    .output(RecoveryCodesRegenerated)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        { action: 'settings.changed', target: 'twoStepRecoveryCodes', details: { replaced: true } },
        () => regenerateRecoveryCodes(accountDeps(ctx), ctx, ctx.session, input),
      ),
    ),

  turnOffTwoStep: accountMutation
    .input(TwoStepReauthInput)
    .output(TwoStepTurnedOff)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'settings.changed', target: 'twoStep', details: { enabled: false } }, () =>
        turnOffTwoStep(accountDeps(ctx), ctx, ctx.session, input),
      ),
    ),

  requireTwoStep: teamChange
    .input(RequireTwoStepInput)
    .output(TwoStepStatus)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        { action: 'settings.changed', target: 'requireTwoStep', details: { required: input.required } },
        () =>
          setTwoStepRequired(
            ctx.em,
            { userId: ctx.session.userId, organizationId: ctx.caller.organizationId },
            input.required,
          ),
      ),
    ),

  signOut: signOutMutation
    .input(z.void())
    .output(SignedOut)
    .mutation(({ ctx }) =>
      audited(ctx, { action: 'session.signed_out' }, () => endSession(ctx.em, ctx.dashboard, ctx.session)),
    ),

  // The account lifecycle (issue 24): accounts/account-lifecycle.ts.
  verifyEmail: anonymousMutation
    .input(VerifyEmailInput)
    .output(EmailVerified)
    .mutation(({ ctx, input }) => verifyEmail(accountDeps(ctx), input.token)),

  resendVerification: accountMutation
    .input(z.void())
    .output(VerificationSent)
    .mutation(async ({ ctx: { session, ...ctx } }) => {
      // Nothing to confirm: no mail, and no budget spent (it would starve the account's other mail).
      if (session.emailVerified) {
        throw validationFailed([{ field: 'email', message: 'is already confirmed' }]);
      }
      await sendVerification(
        accountDeps(ctx),
        { id: session.userId, email: session.email, organizationId: session.organization.id },
        { refuse: ctx.setHeader },
      );
      return { sent: true as const };
    }),

  requestPasswordReset: anonymousMutation
    .input(RequestPasswordResetInput)
    .output(PasswordResetRequested)
    .mutation(({ ctx, input }) => requestPasswordReset(accountDeps(ctx), ctx, input.email)),

  resetPassword: anonymousMutation
    .input(ResetPasswordInput)
    .output(PasswordReset)
    .mutation(async ({ ctx, input }) => {
      const { email, organizationId } = await resetPassword(accountDeps(ctx), input.token, input.password);
      await recordAudit(
        ctx.em.fork(),
        { organizationId, actor: { type: 'user', id: email }, action: 'account.password_reset' },
        ctx.log,
      );
      return { reset: true as const };
    }),

  changePassword: accountMutation
    .input(ChangePasswordInput)
    .output(PasswordChanged)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'account.password_changed' }, () =>
        changePassword(accountDeps(ctx), ctx, ctx.session, input),
      ),
    ),

  changeEmail: accountMutation
    .input(ChangeEmailInput)
    .output(EmailChanged)
    .mutation(({ ctx, input }) =>
      audited(
        ctx,
        (changed) => ({ action: 'account.email_changed', target: changed.email }),
        () => changeEmail(accountDeps(ctx), ctx, ctx.session, input),
      ),
    ),

  /** "Confirm it's you" before a team change on a session signed in over 15 minutes ago. */
  confirmIdentity: accountMutation
    .input(ConfirmIdentityInput)
    .output(IdentityConfirmed)
    .mutation(({ ctx, input }) =>
      audited(ctx, { action: 'session.identity_confirmed' }, () =>
        confirmIdentity(accountDeps(ctx), ctx, ctx.session, input),
      ),
    ),

  signOutEverywhere: accountMutation
    .input(z.void())
    .output(SignedOutEverywhere)
    .mutation(({ ctx }) =>
      audited(ctx, { action: 'session.signed_out_everywhere' }, () =>
        signOutEverywhere(accountDeps(ctx), ctx.session),
      ),
    ),

  session: sessionQuery
    .input(z.void())
    .output(DashboardSession)
    .query(({ ctx: { session } }) => ({
      user: {
        id: session.userId,
        email: session.email,
        emailVerified: session.emailVerified,
        role: session.role,
      },
      organization: session.organization,
      csrfToken: session.csrfToken,
      mode: session.mode,
    })),

  /** The header's test/live switch (docs/decisions/072-live-and-test-modes.md). */
  setMode: accountMutation
    .input(SetDashboardModeInput)
    .output(DashboardSession)
    .mutation(async ({ ctx, input }) => {
      const session = await audited(ctx, { action: 'session.mode_changed', target: input.mode }, () =>
        setSessionMode(ctx.em, ctx.session, input.mode),
      );
      return {
        user: {
          id: session.userId,
          email: session.email,
          emailVerified: session.emailVerified,
          role: session.role,
        },
        organization: session.organization,
        csrfToken: session.csrfToken,
        mode: session.mode,
      };
    }),
});
