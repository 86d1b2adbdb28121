import type { Clock } from '../clock.ts';
import { Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { createApiKey, createOrganization } from './organization-admin.ts';

export const DEMO_ORGANIZATION_NAME = 'Demo Merchant';

/**
 * On the first start against an empty database, a demo organization and a read+write key, so
 * a newcomer can curl at once. Returns the key (the only time it exists in clear) or undefined
 * when the database already has organizations.
 */
export async function createDemoOrganizationIfEmpty(
  em: EntityManager,
  clock: Clock,
): Promise<{ organizationId: string; apiKey: string } | undefined> {
  if ((await em.count(Organization, {})) > 0) return undefined;
  const { organizationId } = await createOrganization(em, DEMO_ORGANIZATION_NAME, clock);
  const { apiKey } = await createApiKey(
    em,
    { organizationId, permissions: { read: true, write: true } },
    clock,
  );
  return { organizationId, apiKey };
}
