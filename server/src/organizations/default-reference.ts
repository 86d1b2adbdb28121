import { defaultReference } from '@pis/shared';
import { Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/** The default reference of a new payment of this organization (one primary-key read of its name). */
export async function defaultReferenceOf(
  em: EntityManager,
  organizationId: string,
  endToEndId: string,
): Promise<string> {
  const organization = await em.fork().findOne(Organization, { id: organizationId }, { fields: ['name'] });
  return defaultReference(organization?.name ?? '', endToEndId);
}
