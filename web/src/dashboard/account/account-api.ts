import type { AppRouter } from '@pis/server/router';
import type { inferRouterInputs } from '@trpc/server';
import { dashboardTrpc } from '../api/dashboard-client.ts';

type Inputs = inferRouterInputs<AppRouter>['dashboard']['account'];

/** The account lifecycle's calls (issue 24), beside dashboard-api.ts. */
export const accountApi = {
  verifyEmail: (token: string) => dashboardTrpc.dashboard.account.verifyEmail.mutate({ token }),
  resendVerification: () => dashboardTrpc.dashboard.account.resendVerification.mutate(),
  requestPasswordReset: (email: string) =>
    dashboardTrpc.dashboard.account.requestPasswordReset.mutate({ email }),
  resetPassword: (input: Inputs['resetPassword']) =>
    dashboardTrpc.dashboard.account.resetPassword.mutate(input),
  changePassword: (input: Inputs['changePassword']) =>
    dashboardTrpc.dashboard.account.changePassword.mutate(input),
  changeEmail: (input: Inputs['changeEmail']) => dashboardTrpc.dashboard.account.changeEmail.mutate(input),
  signOutEverywhere: () => dashboardTrpc.dashboard.account.signOutEverywhere.mutate(),
  confirmIdentity: (input: Inputs['confirmIdentity']) =>
    dashboardTrpc.dashboard.account.confirmIdentity.mutate(input),
  // Two-step verification (item 4).
  signInCode: (input: Inputs['signInCode']) => dashboardTrpc.dashboard.account.signInCode.mutate(input),
  twoStep: (signal: AbortSignal) => dashboardTrpc.dashboard.account.twoStep.query(undefined, { signal }),
  beginTwoStep: () => dashboardTrpc.dashboard.account.beginTwoStep.mutate(),
  confirmTwoStep: (code: string) => dashboardTrpc.dashboard.account.confirmTwoStep.mutate({ code }),
  requireTwoStep: (required: boolean) => dashboardTrpc.dashboard.account.requireTwoStep.mutate({ required }),
  regenerateRecoveryCodes: (input: Inputs['regenerateRecoveryCodes']) =>
    dashboardTrpc.dashboard.account.regenerateRecoveryCodes.mutate(input),
  turnOffTwoStep: (input: Inputs['turnOffTwoStep']) =>
    dashboardTrpc.dashboard.account.turnOffTwoStep.mutate(input),
};

/** The token of a mailed link: in the fragment (`#token=...`), which no server or Referer sees. */
export const tokenFromHash = (hash: string): string =>
  new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
