import { createHash } from 'node:crypto';
import fastifyApiReference, { type FastifyApiReferenceOptions } from '@scalar/fastify-api-reference';
import Fastify from 'fastify';

/** The interactive API reference (Scalar) at /docs, reading the generated document. */
export const DOCS_OPTIONS = {
  routePrefix: '/docs',
  // No fonts from fonts.scalar.com: font-src is 'self' (and the page needs no third party).
  configuration: {
    url: '/api/openapi.json',
    title: 'Payment Initiation Service API',
    withDefaultFonts: false,
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
