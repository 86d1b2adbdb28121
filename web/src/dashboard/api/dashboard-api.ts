import type { AppRouter } from '@pis/server/router';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { dashboardTrpc } from './dashboard-client.ts';

/**
 * The shapes of the server's `dashboard` procedures, read from its router type (type-only:
 * no server or zod code reaches the bundle); the contract itself is shared/src/dashboard.ts.
 */
type Outputs = inferRouterOutputs<AppRouter>['dashboard'];
type Inputs = inferRouterInputs<AppRouter>['dashboard'];

export type Session = Outputs['account']['session'];
export type SignUpInput = Inputs['account']['signUp'];
export type SignInInput = Inputs['account']['signIn'];
export type Overview = Outputs['overview'];
/** The overview's periods (shared OVERVIEW_PERIODS). */
export type OverviewDays = 7 | 30 | 90;
export type ApiKeyEntry = Outputs['apiKeys']['list']['apiKeys'][number];
export type CreateApiKeyInput = Inputs['apiKeys']['create'];
export type CreatedApiKey = Outputs['apiKeys']['create'];
export type PaymentListQuery = Inputs['payments']['list'];
export type PaymentList = Outputs['payments']['list'];
export type PaymentView = Outputs['payments']['get'];
export type NewPaymentInput = Inputs['payments']['create'];
export type CreatedPayment = Outputs['payments']['create'];
export type QuickStart = Outputs['quickStart'];
export type NewPaymentOptions = Outputs['payments']['options'];
export type SavedPayee = Outputs['settings']['payees']['payees'][number];
export type SavePayeeInput = Inputs['settings']['savePayee'];
export type OrganizationBudgets = Outputs['settings']['budgets'];

/** Every call the dashboard makes: session-authenticated procedures, never an API key. */
export const dashboardApi = {
  session: (signal?: AbortSignal) => dashboardTrpc.dashboard.account.session.query(undefined, { signal }),
  signUp: (input: SignUpInput) => dashboardTrpc.dashboard.account.signUp.mutate(input),
  signIn: (input: SignInInput) => dashboardTrpc.dashboard.account.signIn.mutate(input),
  signOut: () => dashboardTrpc.dashboard.account.signOut.mutate(),
  /** The header's test/live switch: which mode's payments the pages show (kept on the session). */
  setMode: (mode: Session['mode']) => dashboardTrpc.dashboard.account.setMode.mutate({ mode }),

  overview: (days: OverviewDays, signal?: AbortSignal) =>
    dashboardTrpc.dashboard.overview.query({ days }, { signal }),
  quickStart: (signal?: AbortSignal) => dashboardTrpc.dashboard.quickStart.query(undefined, { signal }),

  apiKeys: async (signal?: AbortSignal) =>
    (await dashboardTrpc.dashboard.apiKeys.list.query(undefined, { signal })).apiKeys,
  createApiKey: (input: CreateApiKeyInput) => dashboardTrpc.dashboard.apiKeys.create.mutate(input),
  revokeApiKey: (apiKeyId: string) => dashboardTrpc.dashboard.apiKeys.revoke.mutate({ apiKeyId }),

  payments: (query: PaymentListQuery, signal?: AbortSignal) =>
    dashboardTrpc.dashboard.payments.list.query(query, { signal }),
  /** With `wait` (the last answer's etag): held by the server until the payment changes, or `waitSeconds`. */
  payment: (paymentId: string, signal?: AbortSignal, wait?: { ifNoneMatch: string; waitSeconds: number }) =>
    dashboardTrpc.dashboard.payments.get.query({ paymentId, ...wait }, { signal }),
  /** What New payment may offer in the session's mode (providers, their banks, or why none). */
  newPaymentOptions: (signal?: AbortSignal) =>
    dashboardTrpc.dashboard.payments.options.query(undefined, { signal }),
  /** The REST create (same schema, same domain function); `idempotencyKey` is made once per form. */
  createPayment: (input: NewPaymentInput) => dashboardTrpc.dashboard.payments.create.mutate(input),
  cancel: (paymentId: string) => dashboardTrpc.dashboard.payments.cancel.mutate({ paymentId }),
  approve: (paymentId: string, scenario: Inputs['payments']['approve']['scenario']) =>
    dashboardTrpc.dashboard.payments.approve.mutate({ paymentId, scenario }),
  reject: (paymentId: string, reason: Inputs['payments']['reject']['reason']) =>
    dashboardTrpc.dashboard.payments.reject.mutate({ paymentId, reason }),
  /** A fresh customer link for an unfinished payment (earlier links keep their own expiry). */
  newLink: (paymentId: string) => dashboardTrpc.dashboard.payments.newLink.mutate({ paymentId }),
  /** A test clock: the payment's own clock `seconds` ahead. */
  advance: (paymentId: string, seconds: number) =>
    dashboardTrpc.dashboard.payments.advance.mutate({ paymentId, seconds }),

  payees: async (signal?: AbortSignal) =>
    (await dashboardTrpc.dashboard.settings.payees.query(undefined, { signal })).payees,
  savePayee: (input: SavePayeeInput) => dashboardTrpc.dashboard.settings.savePayee.mutate(input),
  removePayee: (payeeId: string) => dashboardTrpc.dashboard.settings.removePayee.mutate({ payeeId }),
  budgets: (signal?: AbortSignal) => dashboardTrpc.dashboard.settings.budgets.query(undefined, { signal }),

  returnOrigins: async (signal?: AbortSignal) =>
    (await dashboardTrpc.dashboard.settings.returnOrigins.query(undefined, { signal })).allowedReturnOrigins,
  setReturnOrigins: async (origins: string[]) =>
    (await dashboardTrpc.dashboard.settings.setReturnOrigins.mutate({ origins })).allowedReturnOrigins,
};
