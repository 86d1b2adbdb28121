import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PAYMENT_MODES } from '@pis/shared';
import { Organization } from './organization.entity.ts';

/**
 * Only a SHA-256 of the key is stored, and it is what finds the row (unique): nothing of the
 * organization is read for a key whose hash does not match. `prefix` (the first characters of
 * the key, not secret) is for people telling keys apart. `lastUsedAt` is written at most once a
 * minute per key, off the request's path (auth/authenticate-api-key.ts, recordKeyUse).
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    id: p.string().primary().length(40),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    name: p.string().length(100).default(''),
    prefix: p.string().length(20).unique(),
    keyHash: p.string().length(64).unique(),
    /** test (the default) or live, also spelled in the key's prefix (`pis_live_...`). */
    mode: p.enum(PAYMENT_MODES).default('test'),
    canRead: p.boolean(),
    canWrite: p.boolean(),
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
