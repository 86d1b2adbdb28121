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
  },
});
export type Organization = InferEntity<typeof Organization>;
