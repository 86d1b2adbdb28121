import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { DashboardUser } from './dashboard-user.entity.ts';

export const ACCOUNT_TOKEN_PURPOSES = ['verify-email', 'password-reset', 'two-step'] as const;

/**
 * A single-use, short-lived link sent by mail (accounts/account-tokens.ts). Only the SHA-256 of
 * the token is stored (a copy of the table opens nothing); `usedAt` makes it single use.
 * `email` is the address it was sent to: a verification proves that address, and no longer
 * counts once the account's email has changed.
 */
export const AccountToken = defineEntity({
  name: 'AccountToken',
  tableName: 'account_token',
  properties: {
    id: p.string().length(64).primary(),
    user: () => p.manyToOne(DashboardUser).mapToPk().deleteRule('cascade').index(),
    purpose: p.enum(ACCOUNT_TOKEN_PURPOSES),
    email: p.string().length(254),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});
export type AccountToken = InferEntity<typeof AccountToken>;
