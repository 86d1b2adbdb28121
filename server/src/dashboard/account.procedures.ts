import { DashboardSession, SignedOut, SignInInput, SignUpInput } from '@pis/shared';
import { z } from 'zod';
import { endSession } from '../accounts/sessions.ts';
import { signIn } from '../accounts/sign-in.ts';
import { signUp } from '../accounts/sign-up.ts';
import { audited, auditedSignIn } from '../observability/audit-log.ts';
import { router } from '../trpc/trpc.ts';
import { anonymousMutation, sessionQuery, signOutMutation } from './dashboard-procedures.ts';

/** Sign-up, sign-in, sign-out and "who am I" (with the CSRF token the page sends back). */
export const accountRouter = router({
  signUp: anonymousMutation
    .input(SignUpInput)
    .output(DashboardSession)
    .mutation(({ ctx, input }) => signUp(ctx.em, ctx.dashboard, ctx, input, ctx.clock)),

  signIn: anonymousMutation
    .input(SignInInput)
    .output(DashboardSession)
    .mutation(({ ctx, input }) =>
      auditedSignIn(ctx, input.email, () => signIn(ctx.em, ctx.dashboard, ctx, input, ctx.clock)),
    ),

  signOut: signOutMutation
    .input(z.void())
    .output(SignedOut)
    .mutation(({ ctx }) =>
      audited(ctx, { action: 'session.signed_out' }, () => endSession(ctx.em, ctx.dashboard, ctx.session)),
    ),

  session: sessionQuery
    .input(z.void())
    .output(DashboardSession)
    .query(({ ctx: { session } }) => ({
      user: { id: session.userId, email: session.email },
      organization: session.organization,
      csrfToken: session.csrfToken,
    })),
});
