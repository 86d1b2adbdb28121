import { DASHBOARD_CSRF_HEADER, DASHBOARD_SESSION_COOKIE } from '@pis/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the dashboard's procedures need of the HTTP exchange: the session cookie, the CSRF
 * header and a way to set or clear the cookie. Cookies are parsed only when a dashboard
 * procedure asks. (The client's address and response headers are the context's own.)
 */
export interface DashboardHttp {
  sessionToken(): string | undefined;
  csrfHeader(): string | undefined;
  setSessionCookie(token: string, expiresAt: Date): void;
  clearSessionCookie(): void;
}

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs), Secure when the
 * service is served over https, and limited to /trpc: the only path that reads it.
 */
const cookieOptions = (secure: boolean) =>
  ({ httpOnly: true, sameSite: 'lax', secure, path: '/trpc' }) as const;

export function dashboardHttp(
  req: FastifyRequest,
  reply: FastifyReply,
  secureCookies: boolean,
): DashboardHttp {
  const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);
  return {
    sessionToken: () => {
      const header = req.headers.cookie;
      return header ? req.server.parseCookie(header)[DASHBOARD_SESSION_COOKIE] : undefined;
    },
    csrfHeader: () => single(req.headers[DASHBOARD_CSRF_HEADER]),
    setSessionCookie: (token, expiresAt) => {
      reply.setCookie(DASHBOARD_SESSION_COOKIE, token, {
        ...cookieOptions(secureCookies),
        expires: expiresAt,
      });
    },
    clearSessionCookie: () => {
      reply.clearCookie(DASHBOARD_SESSION_COOKIE, cookieOptions(secureCookies));
    },
  };
}
