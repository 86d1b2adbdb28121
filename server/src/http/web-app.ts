import { existsSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sendFailure } from './fastify-failure.ts';

/** Paths the SPA never owns: a miss there is a real 404, not a deep link. */
const NOT_SPA = /^\/(api|trpc|docs|bank-logos)(\/|$|\?)/;
/** A missing /assets/x.js or /favicon.ico is a 404, not the SPA. */
const LOOKS_LIKE_FILE = /\/[^/?]+\.[a-z0-9]{1,8}(\?|$)/i;

/**
 * Customer links are opened by browsers, but also by curl, link checkers and mail scanners
 * (`Accept: *\/*` or none): they all get the page. Only a client asking for JSON alone gets
 * the JSON 404.
 */
const acceptsHtml = (accept: string | undefined) =>
  !accept || accept.includes('text/html') || accept.includes('*/*') || accept.includes('text/*');

/**
 * Serves the Vite build (web/dist) and answers index.html for HTML GETs elsewhere, so deep
 * links like /pay/<token> load the SPA. `wildcard: false` registers one route per file found
 * at start (a rebuilt web needs a restart). Without a build the API still runs and other
 * paths answer 404.
 */
export async function webApp(app: FastifyInstance, options: { distDir: string }): Promise<void> {
  const indexFile = path.join(options.distDir, 'index.html');
  const hasBuild = existsSync(indexFile);
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: options.distDir,
      wildcard: false,
      // Vite fingerprints files under /assets; index.html must always be revalidated.
      setHeaders: (reply, filePath) => {
        reply.header(
          'cache-control',
          filePath.includes(`${path.sep}assets${path.sep}`)
            ? 'public, max-age=31536000, immutable'
            : 'no-cache',
        );
      },
    });
  } else {
    app.log.warn({ distDir: options.distDir }, 'web build not found: only the API is served');
  }

  app.setNotFoundHandler((request, reply) => {
    if (
      hasBuild &&
      (request.method === 'GET' || request.method === 'HEAD') &&
      acceptsHtml(request.headers.accept) &&
      !NOT_SPA.test(request.url) &&
      !LOOKS_LIKE_FILE.test(request.url)
    ) {
      // Customer pages (test payments above all) must never be a search result.
      return reply
        .header('cache-control', 'no-cache')
        .header('x-robots-tag', 'noindex, nofollow')
        .sendFile('index.html');
    }
    return sendFailure(reply, { status: 404, body: { message: 'Not found' } });
  });
}
