import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { PAYMENT_MODES } from '@pis/shared';
import { DashboardUser } from './dashboard-user.entity.ts';

/**
 * A signed-in browser. `id` is the SHA-256 of the cookie's random token, so the table alone
 * cannot sign anyone in. Idle expiry counts from `lastSeenAt`; `expiresAt` is the absolute end.
 * Signing out deletes the row.
 */
export const DashboardSession = defineEntity({
  name: 'DashboardSession',
  tableName: 'dashboard_session',
  properties: {
    id: p.string().primary().length(64),
    user: () => p.manyToOne(DashboardUser).mapToPk().deleteRule('cascade').index(),
    csrfToken: p.string().length(64),
    /** Which payments the dashboard shows: test (the default) or live (the header's switch). */
    mode: p.enum(PAYMENT_MODES).default('test'),
    createdAt: p.datetime(),
    /** When its member last proved who they are (sign-in, or a confirmation since): team changes ask again past 15 minutes. */
    authenticatedAt: p.datetime(),
    lastSeenAt: p.datetime(),
    expiresAt: p.datetime().index(),
  },
});
export type DashboardSession = InferEntity<typeof DashboardSession>;
