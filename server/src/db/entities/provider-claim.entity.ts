import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Payment } from './payment.entity.ts';

export const PROVIDER_CLAIM_ACTIONS = ['start', 'cancel'] as const;
export type ProviderClaimAction = (typeof PROVIDER_CLAIM_ACTIONS)[number];

/**
 * A provider call decided under the payment's row lock and not yet answered (see
 * payments/provider-claims.ts). At most one per payment: while it stands, other decisions on the
 * payment are refused and the payment's own timeline waits at the claim's time; it goes when the
 * answer is applied, or when the reconcile job has asked the provider.
 */
export const ProviderClaim = defineEntity({
  name: 'ProviderClaim',
  tableName: 'provider_claim',
  properties: {
    payment: () => p.manyToOne(Payment).mapToPk().primary().deleteRule('cascade'),
    /** Names this attempt, so a late answer cannot settle a claim made after it. */
    claimId: p.string().length(40),
    action: p.enum(PROVIDER_CLAIM_ACTIONS),
    /** The bank a start goes to. */
    bankId: p.string().length(100).nullable(),
    claimedAt: p.datetime(),
  },
});
export type ProviderClaim = InferEntity<typeof ProviderClaim>;
