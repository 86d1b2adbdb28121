import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * The current fixed window of one rate-limit key (`key:api:<keyId>:read`, `ip:pages:<address>`,
 * ...), shared by every instance. One row per key: a hit in a new window resets it in place, so
 * the table holds one row per key seen recently. Written only by rate-limits/rate-limit-store.ts.
 */
export const RateLimitWindow = defineEntity({
  name: 'RateLimitWindow',
  tableName: 'rate_limit_window',
  properties: {
    key: p.string().length(200).primary(),
    windowStart: p.datetime(),
    /** windowStart + the window's length: when `hits` starts again at 0. */
    resetsAt: p.datetime(),
    hits: p.integer(),
  },
  // The purge of windows that ended.
  indexes: [{ name: 'rate_limit_window_resets_at_idx', properties: ['resetsAt'] }],
});
export type RateLimitWindow = InferEntity<typeof RateLimitWindow>;
