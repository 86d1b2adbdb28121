import { DASHBOARD_CSRF_HEADER, DASHBOARD_SESSION_COOKIE } from '@pis/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardHttp } from '../accounts/sessions.ts';

/**
 * HttpOnly (no script reads it), SameSite=Lax (not sent on cross-site POSTs), and what the
 * `__Host-` prefix requires (issue 24's review): Secure, Path=/, no Domain. A dashboard on plain
 * http therefore works only on a loopback address (browsers treat it as secure); anything else
 * must be served over https.
 */
const COOKIE_OPTIONS = { httpOnly: true, sameSite: 'lax', secure: true, path: '/' } as const;

/** The dashboard's view of one request and its reply (accounts/sessions.ts `DashboardHttp`). */
export function dashboardHttp(req: FastifyRequest, reply: FastifyReply): DashboardHttp {
  const single = (value: string | string[] | undefined) => (typeof value === 'string' ? value : undefined);
  return {
    sessionToken: () => {
      const header = req.headers.cookie;
      return header ? req.server.parseCookie(header)[DASHBOARD_SESSION_COOKIE] : undefined;
    },
    csrfHeader: () => single(req.headers[DASHBOARD_CSRF_HEADER]),
    setSessionCookie: (token, expiresAt) => {
      reply.setCookie(DASHBOARD_SESSION_COOKIE, token, {
        ...COOKIE_OPTIONS,
        expires: expiresAt,
      });
    },
    clearSessionCookie: () => {
      reply.clearCookie(DASHBOARD_SESSION_COOKIE, COOKIE_OPTIONS);
    },
  };
}
