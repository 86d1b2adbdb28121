import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

// The hooks every request passes first: its id (kept from the caller when usable, echoed on
// every answer), then the security headers.

/**
 * A caller's own id is kept when it is a plain token (what proxies and tracing systems send:
 * UUIDs, hex, `abc-123.4`); anything else (too long, spaces, control characters that could
 * split a log line or a header) is replaced by a fresh UUID.
 */
const USABLE_REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Fastify's `genReqId`: the id is bound to every log line of the request (`reqId`). */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && USABLE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** onRequest hook, first of all: every answer carries the id, also those a later hook sends. */
export async function echoRequestId(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header('x-request-id', request.id);
}

/**
 * The customer pages are our own scripts and styles only. `frame-ancestors 'none'`: no site may
 * frame the Mock bank's Approve button (or any page) to trick a click. Bank logos are `self`;
 * no form posts anywhere (the pages call /trpc and navigate by script).
 */
const PAGE_CSP = {
  defaultSrc: ["'self'"],
  baseUri: ["'none'"],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  formAction: ["'none'"],
  frameAncestors: ["'none'"],
  imgSrc: ["'self'", 'data:'],
  objectSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
};

/**
 * The API reference (Scalar) starts itself from one inline script, allowed by its hash (see
 * http/docs-page.ts), never by 'unsafe-inline'; it styles inline (style-src still allows that).
 */
const docsCsp = (scriptHashes: readonly string[]) => ({
  ...PAGE_CSP,
  scriptSrc: ["'self'", ...scriptHashes],
  styleSrc: ["'self'", "'unsafe-inline'"],
  fontSrc: ["'self'", 'data:'],
});

const NOT_CACHEABLE = /^\/(api|trpc)(\/|\?|$)/;

/**
 * Security headers on every answer (helmet), registered before any route:
 * - the CSPs above, `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` for old browsers;
 * - `Referrer-Policy: no-referrer` everywhere: a customer page's URL carries its link token,
 *   and the merchant's return page must not receive it in `Referer`;
 * - HSTS only when the public origin is https (on plain http it would be ignored, or wrong
 *   behind a local proxy);
 * - `Cache-Control: no-store` on /api and /trpc: payment data and link sessions must not sit in
 *   a browser or proxy cache (a route may still say otherwise, e.g. the public OpenAPI document).
 * Bank logos stay loadable from merchants' checkouts (Cross-Origin-Resource-Policy: cross-origin).
 */
export async function securityHeaders(
  app: FastifyInstance,
  options: { publicBaseUrl: string; docsScriptHashes: () => Promise<readonly string[]> },
): Promise<void> {
  const https = options.publicBaseUrl.startsWith('https:');
  const everywhere: HelmetOptions = {
    contentSecurityPolicy: { useDefaults: false, directives: PAGE_CSP },
    referrerPolicy: { policy: 'no-referrer' },
    frameguard: { action: 'deny' },
    strictTransportSecurity: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  };
  // Built once: @fastify/helmet rebuilt helmet (and re-parsed the CSP) on every request, ~3% of
  // a GET's CPU (docs/decisions/005-hot-path-performance.md). Same headers, chosen by route.
  const pages = helmet(everywhere);
  // The reference's CSP needs its script's hashes, known once the reference is first rendered
  // (http/docs-page.ts loads it on the first /docs request): built then, once.
  let docs: Promise<ReturnType<typeof helmet>> | undefined;
  const docsHeaders = () => {
    docs ??= options
      .docsScriptHashes()
      .then((hashes) =>
        helmet({ ...everywhere, contentSecurityPolicy: { useDefaults: false, directives: docsCsp(hashes) } }),
      );
    docs.catch(() => {
      docs = undefined;
    });
    return docs;
  };
  const bankLogos = helmet({ ...everywhere, crossOriginResourcePolicy: { policy: 'cross-origin' } });
  const done = (error?: unknown) => {
    if (error) throw error;
  };
  app.addHook('onRequest', (request, reply, next) => {
    const route = request.routeOptions.url ?? '';
    if (route.startsWith('/docs')) {
      docsHeaders().then((headers) => {
        headers(request.raw, reply.raw, done);
        next();
      }, next);
      return;
    }
    const headers = route.startsWith('/bank-logos') ? bankLogos : pages;
    headers(request.raw, reply.raw, done);
    if (NOT_CACHEABLE.test(request.url)) reply.header('cache-control', 'no-store');
    next();
  });
}
