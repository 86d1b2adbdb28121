import { createApiKey, type Permissions, revokeApiKey } from '../../src/auth/api-keys.ts';
import type { Clock } from '../../src/clock.ts';
import type { Orm } from '../../src/db/orm.ts';
import {
  approveProvider as approve,
  createOrganization,
  setOrganizationActive,
} from '../../src/organizations/organization-admin.ts';

export type PermissionSpec = 'read' | 'write' | 'read,write' | 'none';

const permissionsOf = (spec: PermissionSpec): Permissions => ({
  read: spec === 'read' || spec === 'read,write',
  write: spec === 'write' || spec === 'read,write',
});

/**
 * Test data through the same operator functions the CLI uses, so tests never build rows the
 * service could not have built itself.
 */
export function factories(orm: Orm, clock: Clock) {
  const em = () => orm.em.fork();
  return {
    async createOrg(options: { name?: string; active?: boolean } = {}): Promise<string> {
      const { organizationId } = await createOrganization(em(), options.name ?? 'Test Merchant', clock);
      if (options.active === false) await setOrganizationActive(em(), organizationId, false);
      return organizationId;
    },

    async createKey(
      organizationId: string,
      permissions: PermissionSpec = 'read,write',
      options: { expiresAt?: Date; revoked?: boolean } = {},
    ): Promise<{ apiKeyId: string; apiKey: string }> {
      const key = await createApiKey(
        em(),
        { organizationId, permissions: permissionsOf(permissions), expiresAt: options.expiresAt },
        clock,
      );
      if (options.revoked) await revokeApiKey(em(), { apiKeyId: key.apiKeyId }, clock);
      return { apiKeyId: key.apiKeyId, apiKey: key.apiKey };
    },

    async approveProvider(organizationId: string, provider: string): Promise<void> {
      await approve(em(), organizationId, provider, clock);
    },

    async setActive(organizationId: string, active: boolean): Promise<void> {
      await setOrganizationActive(em(), organizationId, active);
    },

    /** An active organization with one key: the usual starting point. */
    async createMerchant(permissions: PermissionSpec = 'read,write') {
      const organizationId = await this.createOrg();
      const { apiKey, apiKeyId } = await this.createKey(organizationId, permissions);
      return { organizationId, apiKey, apiKeyId, headers: { 'x-api-key': apiKey } };
    },
  };
}

export type Factories = ReturnType<typeof factories>;
