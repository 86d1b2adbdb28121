import { ReturnOrigin, validationFailed } from '@pis/shared';
import { z } from 'zod';
import { Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { loadOrganization } from './organization-admin.ts';

/**
 * Where an organization's customers may be sent back to: a list of origins, checked on every
 * create (shared `checkReturnUrl`). Empty means any origin, as before the merchant set one. The
 * operator CLI calls this today; the dashboard calls the same function.
 */

/** At most this many origins per organization: a shop has a few sites, not hundreds. */
export const MAX_RETURN_ORIGINS = 20;

const ReturnOrigins = z.array(ReturnOrigin).max(MAX_RETURN_ORIGINS, {
  error: `must list at most ${MAX_RETURN_ORIGINS} origins`,
});

/**
 * Replaces the organization's allowed return origins (empty list: clears them, any origin
 * allowed). Each must be an origin (`https://shop.example`, `http://localhost:8080`); bad ones
 * are VALIDATION_FAILED with one detail each (`origins.1`), and nothing changes. Duplicates
 * collapse. Answers the stored list.
 */
export async function setAllowedReturnOrigins(
  em: EntityManager,
  organizationId: string,
  origins: readonly string[],
): Promise<{ organizationId: string; allowedReturnOrigins: string[] }> {
  const parsed = ReturnOrigins.safeParse(origins);
  if (!parsed.success) {
    throw validationFailed(
      parsed.error.issues.map((issue) => ({
        field: ['origins', ...issue.path].join('.'),
        message: issue.message,
      })),
    );
  }
  const organization = await loadOrganization(em, organizationId);
  const unique = [...new Set(parsed.data)];
  organization.allowedReturnOrigins = unique.length > 0 ? unique : null;
  await em.flush();
  return { organizationId, allowedReturnOrigins: unique };
}

/** The organization's allowed return origins; empty when it set none. */
export async function allowedReturnOrigins(em: EntityManager, organizationId: string): Promise<string[]> {
  const organization = await em
    .fork()
    .findOne(Organization, { id: organizationId }, { fields: ['allowedReturnOrigins'] });
  return organization?.allowedReturnOrigins ?? [];
}
