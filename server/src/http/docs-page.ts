import { createHash } from 'node:crypto';
import fastifyApiReference, { type FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';
import Fastify from 'fastify';
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

let hashes: Promise<string[]> | undefined;

/**
 * The hashes of the reference page's start-up script, so /docs runs without 'unsafe-inline' in
 * script-src. The page is rendered once by the plugin itself, with the same options, in a
 * throwaway instance: the hash follows the plugin's own HTML through upgrades instead of a copy
 * of it. The configuration is static, so the answer is computed once per process.
 */
export function docsScriptHashes(): Promise<string[]> {
  hashes ??= (async () => {
    const probe = Fastify({ logger: false });
    try {
      await probe.register(fastifyApiReference, { ...DOCS_OPTIONS, logLevel: 'silent' });
      const page = await probe.inject({ method: 'GET', url: `${DOCS_OPTIONS.routePrefix}/` });
      const found = inlineScriptHashes(page.body);
      if (page.statusCode !== 200 || found.length === 0) {
        throw new Error(`the API reference page rendered no start-up script (${page.statusCode})`);
      }
      return found;
    } finally {
      await probe.close();
    }
  })();
  return hashes;
}
