import type { FastifyInstance } from 'fastify';
import type { Orm } from '../db/orm.ts';
import { sendFailure } from '../http/fastify-failure.ts';
import { brandLogo } from './brand.ts';

const ORGANIZATION_ID = /^[A-Za-z0-9_-]{1,40}$/;
const FILE = /^([0-9a-f]{64})\.(png|svg)$/;

/**
 * `GET /brand-logos/:organizationId/:sha256.(png|svg)`: a verified merchant's logo, from our
 * origin (the pages' `img-src 'self'`). The address names the logo's hash, so it is cached for
 * ever and a new logo is a new address. Its own CSP on top of the SVG allow-list
 * (organizations/brand-logo.ts): opened on its own, the file can run nothing and load nothing.
 * Anything else, or a merchant not (or no longer) verified: 404.
 */
export async function brandLogoRoutes(app: FastifyInstance, options: { orm: Orm }): Promise<void> {
  app.get<{ Params: { organizationId: string; file: string } }>(
    '/brand-logos/:organizationId/:file',
    async (request, reply) => {
      const file = FILE.exec(request.params.file);
      const logo =
        file && ORGANIZATION_ID.test(request.params.organizationId)
          ? await brandLogo(options.orm.em, request.params.organizationId, file[1] as string)
          : null;
      if (!logo || (file?.[2] === 'png') !== (logo.type === 'image/png')) {
        return sendFailure(reply.header('cache-control', 'no-store'), {
          status: 404,
          body: { message: 'Not found' },
        });
      }
      return reply
        .header('content-type', logo.type === 'image/png' ? 'image/png' : 'image/svg+xml')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .send(logo.bytes);
    },
  );
}
