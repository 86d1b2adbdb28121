import { hashPassword } from '../accounts/password-hash.ts';
import { assertStrongPassword } from '../accounts/password-strength.ts';
import { createUser, generatePassword } from '../accounts/users.ts';
import { createApiKey, keyReference, listApiKeys, revokeApiKey } from '../auth/api-keys.ts';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import { assertMayHoldLiveKey } from '../organizations/live-keys.ts';
import { loadOrganization } from '../organizations/organization-admin.ts';

export { verifyOrganization } from '../organizations/brand.ts';
/**
 * What each CLI command does, as the JSON it prints. Loaded by admin.ts only once the command
 * line is valid (it pulls in the ORM). The domain functions are the ones the dashboard uses.
 */
export {
  approveProvider,
  createOrganization,
  setOrganizationActive,
  setOrganizationLimits,
} from '../organizations/organization-admin.ts';
export { setAllowedReturnOrigins } from '../organizations/return-origins.ts';

/**
 * The key in clear is in the answer: the operator sees it this once. A live key only for an
 * organization the operator approved for a real provider (`org:approve-provider`, e.g. obie):
 * with the Mock bank alone it could pay nowhere (docs/decisions/072-live-and-test-modes.md).
 */
export async function createKey(em: EntityManager, input: Parameters<typeof createApiKey>[1], clock: Clock) {
  if (input.mode === 'live') await assertMayHoldLiveKey(em, input.organizationId);
  const { apiKeyId, apiKey } = await createApiKey(em, input, clock);
  return { apiKeyId, apiKey, mode: input.mode ?? 'test' };
}

/** Never a secret: id, name, prefix, permissions, state (and the dates). */
export async function listKeys(em: EntityManager, organizationId: string, clock: Clock) {
  await loadOrganization(em, organizationId);
  return { organizationId, apiKeys: await listApiKeys(em, organizationId, clock.now()) };
}

/** `reference`: a key id or the key itself; the answer names the id only. */
export async function revokeKey(em: EntityManager, reference: string, clock: Clock) {
  const { apiKeyId, revoked } = await revokeApiKey(em, keyReference(reference), clock);
  return { apiKeyId, revoked };
}

/** A dashboard user in an existing organization; a generated password when none is given (shown once). */
export async function createDashboardUser(
  em: EntityManager,
  input: { organizationId: string; email: string; password?: string | undefined },
  clock: Clock,
) {
  const organization = await loadOrganization(em, input.organizationId);
  // The operator's choice meets the rule sign-up applies (VALIDATION_FAILED, exit 2); a
  // generated password is random and needs no check.
  if (input.password !== undefined) {
    await assertStrongPassword(input.password, [input.email, organization.name]);
  }
  const password = input.password ?? generatePassword();
  const { userId } = await createUser(
    em,
    { organizationId: input.organizationId, email: input.email, passwordHash: await hashPassword(password) },
    clock,
  );
  return { userId, password };
}

export { failedMail } from '../mail/mail-deliveries.ts';
