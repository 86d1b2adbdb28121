import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** A merchant. Everything an API key can see is scoped to its organization. */
export const Organization = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: p.string().primary().length(40),
    name: p.string().length(200),
    active: p.boolean().default(true),
    /**
     * Origins (`https://shop.example`) a payment's `redirectUrl` may point at; null or empty:
     * any origin. Written only through organizations/return-origins.ts.
     */
    allowedReturnOrigins: p.json<string[]>().nullable(),
    createdAt: p.datetime(),
    /**
     * Made by self-serve sign-up and not yet reviewed: a tenth of the default API budgets
     * (rate-limits/organization-budgets.ts) until an operator runs `org:set-limits`.
     */
    reducedBudgets: p.boolean().default(false),
    /** The operator's own budgets (`org:set-limits`); null: the default (or its tenth). */
    budgetApiReads: p.integer().nullable(),
    budgetApiWrites: p.integer().nullable(),
    budgetWaits: p.integer().nullable(),
    /** Every member must sign in with two-step verification (set by a member who uses it). */
    requireTwoStep: p.boolean().default(false),
    /**
     * When an operator verified who this merchant is (`org:verify`): only then do its customer
     * pages show its brand (organization_brand), so a free sign-up cannot dress a page on our domain.
     */
    verifiedAt: p.datetime().nullable(),
  },
});
export type Organization = InferEntity<typeof Organization>;
