import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Organization } from './organization.entity.ts';

/**
 * Only a SHA-256 of the key is stored. `prefix` (the first characters of the key, not secret)
 * finds the row; the hash is then compared in constant time.
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.string().primary().length(40),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    prefix: p.string().length(20).unique(),
    keyHash: p.string().length(64),
    canRead: p.boolean(),
    canWrite: p.boolean(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
