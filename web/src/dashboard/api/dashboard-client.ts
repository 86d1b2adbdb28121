import type { AppRouter } from '@pis/server/router';
import type { DASHBOARD_CSRF_HEADER } from '@pis/shared';
import { createTRPCClient, httpLink } from '@trpc/client';

/**
 * The header the server checks on every state-changing dashboard call (cross-site request
 * forgery). Typed by shared's constant rather than imported from it: shared's runtime would
 * bring zod into the bundle, and a different value here fails to compile.
 */
export const CSRF_HEADER: typeof DASHBOARD_CSRF_HEADER = 'x-csrf-token';

/**
 * Before there is a session (sign-up, sign-in) the server wants the header present with any
 * value: a cross-site form cannot set a custom header at all.
 */
const NO_SESSION_YET = '1';

let csrfToken: string | null = null;

/** Set from `session()` (and sign-in/sign-up); cleared on sign-out. */
export const rememberCsrfToken = (token: string | null): void => {
  csrfToken = token;
};

/**
 * The dashboard's own tRPC client: the session cookie goes along by itself (same origin), the
 * CSRF token as a header. A separate client from the customer pages' one so that nothing of
 * the dashboard reaches their bundle. dashboard-api.ts is its only caller.
 */
export const dashboardTrpc = createTRPCClient<AppRouter>({
  links: [
    httpLink({
      url: new URL('/trpc', window.location.origin).href,
      headers: () => ({ [CSRF_HEADER]: csrfToken ?? NO_SESSION_YET }),
    }),
  ],
});
