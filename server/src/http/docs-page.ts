import { createHash } from 'node:crypto';
import type { FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { API_KEY_SCHEME } from './openapi-document.ts';

/**
 * The API reference at /docs (Scalar), set up for this service and for a machine with no
 * internet (issue 23 item 11): its script comes from this server, no web fonts (font-src is
 * 'self'), no telemetry, no request proxy, no "Ask AI", MCP or developer-tools buttons. The
 * `x-api-key` scheme is preselected and left empty: the merchant pastes their own key, nothing
 * secret is in the page.
 */
export const DOCS_OPTIONS = {
  routePrefix: '/docs',
  configuration: {
    url: '/api/openapi.json',
    title: 'Payment Initiation Service API',
    pageTitle: 'API reference · Payment Initiation Service',
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    hideDarkModeToggle: false,
    // Test requests go straight from the browser to this same origin; Scalar's default would
    // route them through its hosted proxy.
    proxyUrl: '',
    authentication: { preferredSecurityScheme: API_KEY_SCHEME },
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  },
  logLevel: 'warn',
} as const satisfies FastifyApiReferenceOptions;

const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/** CSP source expressions (`'sha256-...'`) of every inline script in an HTML page. */
export const inlineScriptHashes = (html: string): string[] =>
  [...html.matchAll(INLINE_SCRIPT)].map(
    ([, body = '']) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`,
  );

let reference: Promise<FastifyInstance> | undefined;

/**
 * The Scalar plugin in a Fastify instance of its own, made on the first /docs request: the
 * plugin holds the reference's browser script as text and its modules take ~40 MB of a
 * process's memory, which a process nobody reads the docs on no longer pays (issue 32 item 4).
 */
function referenceApp(): Promise<FastifyInstance> {
  reference ??= (async () => {
    const { default: fastifyApiReference } = await import('@scalar/fastify-api-reference');
    const inner = Fastify({ logger: false });
    await inner.register(fastifyApiReference, { ...DOCS_OPTIONS, logLevel: 'silent' });
    await inner.ready();
    return inner;
  })();
  reference.catch(() => {
    reference = undefined;
  });
  return reference;
}

/** What the reference's answers carry over from the inner instance (security headers are ours). */
const CARRIED = ['content-type', 'cache-control', 'etag', 'last-modified', 'location'];

/** /docs and everything under it, answered by the reference's own instance (see referenceApp). */
export async function docsRoutes(app: FastifyInstance): Promise<void> {
  const answer = async (request: FastifyRequest, reply: FastifyReply) => {
    const inner = await referenceApp();
    const ifNoneMatch = request.headers['if-none-match'];
    const found = await inner.inject({
      method: request.method === 'HEAD' ? 'HEAD' : 'GET',
      url: request.url,
      ...(ifNoneMatch ? { headers: { 'if-none-match': ifNoneMatch } } : {}),
    });
    for (const name of CARRIED) {
      const value = found.headers[name];
      if (value !== undefined) reply.header(name, value);
    }
    return reply.code(found.statusCode).send(found.rawPayload);
  };
  app.get(DOCS_OPTIONS.routePrefix, answer);
  app.get(`${DOCS_OPTIONS.routePrefix}/*`, answer);
}

let hashes: Promise<string[]> | undefined;

/**
 * The hashes of the reference page's start-up script, so /docs runs without 'unsafe-inline' in
 * script-src. The page is rendered by the plugin itself, with the same options (referenceApp):
 * the hash follows the plugin's own HTML through upgrades instead of a copy of it. The
 * configuration is static, so the answer is computed once per process, on the first /docs request.
 */
export function docsScriptHashes(): Promise<string[]> {
  hashes ??= (async () => {
    const page = await (await referenceApp()).inject({ method: 'GET', url: `${DOCS_OPTIONS.routePrefix}/` });
    const found = inlineScriptHashes(page.body);
    if (page.statusCode !== 200 || found.length === 0) {
      throw new Error(`the API reference page rendered no start-up script (${page.statusCode})`);
    }
    return found;
  })();
  hashes.catch(() => {
    hashes = undefined;
  });
  return hashes;
}
