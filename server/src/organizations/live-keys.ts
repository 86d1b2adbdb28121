import { AppError } from '@pis/shared';
import { OrganizationProvider } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { loadOrganization } from './organization-admin.ts';

/**
 * The one rule for live keys, for the operator CLI and the dashboard alike: only an organization
 * the operator approved for a real provider (`org:approve-provider`, e.g. obie) may hold one; with
 * the Mock bank alone a live key could pay nowhere (docs/decisions/072-live-and-test-modes.md).
 */
export async function assertMayHoldLiveKey(em: EntityManager, organizationId: string): Promise<void> {
  const approved = await em.fork().count(OrganizationProvider, { organization: organizationId });
  if (approved > 0) return;
  await loadOrganization(em, organizationId);
  throw new AppError(
    'FORBIDDEN',
    'A live key needs an organization approved for a real provider: the operator approves one with org:approve-provider',
  );
}
