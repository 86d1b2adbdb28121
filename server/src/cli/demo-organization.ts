import { hashPassword } from '../accounts/password-hash.ts';
import { createUser, generatePassword } from '../accounts/users.ts';
import { createApiKey } from '../auth/api-keys.ts';
import type { Clock } from '../clock.ts';
import { Organization } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { createOrganization } from '../organizations/organization-admin.ts';

export const DEMO_ORGANIZATION_NAME = 'Demo Merchant';
export const DEMO_USER_EMAIL = 'demo@merchant.example';

export interface DemoOrganization {
  organizationId: string;
  apiKeyId: string;
  /** The key and the password exist in clear only here: printed once on stdout, never logged. */
  apiKey: string;
  user: { email: string; password: string };
}

/**
 * On the first start against an empty database, a demo organization with a read+write key and
 * a dashboard user, so a newcomer can curl or sign in at once. Undefined when the database
 * already has organizations.
 */
export async function createDemoOrganizationIfEmpty(
  em: EntityManager,
  clock: Clock,
): Promise<DemoOrganization | undefined> {
  if ((await em.count(Organization, {})) > 0) return undefined;
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return em.transactional(async (tx) => {
    const { organizationId } = await createOrganization(tx, DEMO_ORGANIZATION_NAME, clock);
    const key = await createApiKey(
      tx,
      { organizationId, name: 'Demo key', permissions: { read: true, write: true } },
      clock,
    );
    await createUser(tx, { organizationId, email: DEMO_USER_EMAIL, passwordHash }, clock);
    return {
      organizationId,
      apiKeyId: key.apiKeyId,
      apiKey: key.apiKey,
      user: { email: DEMO_USER_EMAIL, password },
    };
  });
}

/**
 * What the first start prints (on stdout, for the person at the terminal; never through the
 * logger, so no secret reaches the structured log stream): the key with its id, the dashboard
 * user with its password, each shown this once.
 */
export function demoBanner(demo: DemoOrganization, publicBaseUrl: string): string[] {
  return [
    `Created a demo organization (${demo.organizationId}) with a read+write API key and a dashboard user.`,
    'The key and the password are shown only this once:',
    '',
    `  API key    ${demo.apiKey}`,
    `  key id     ${demo.apiKeyId}   (revoke with: npm run -s admin -- key:revoke --key ${demo.apiKeyId})`,
    '',
    `  dashboard  ${publicBaseUrl}/dashboard/sign-in`,
    `  email      ${demo.user.email}`,
    `  password   ${demo.user.password}`,
    '',
    'Try:',
    `  curl -H "x-api-key: ${demo.apiKey}" ${publicBaseUrl}/api/banks`,
  ];
}
