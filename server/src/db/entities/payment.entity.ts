import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import {
  type Account,
  FLOW_TYPES,
  ISO_CODES,
  type MockBankScenario,
  PAYMENT_MODES,
  PAYMENT_STATUSES,
  type ProviderStatus,
  REASON_CODES,
  type ResolvedTiming,
} from '@pis/shared';
import { Organization } from './organization.entity.ts';

/**
 * One row per payment, mirroring the shared `PaymentRecord` (mapped in payments/payment-store.ts).
 * The status columns change only through the lifecycle functions, inside a transaction that
 * holds this row's lock; `version` is a second guard against a write that skipped the lock.
 */
export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payment',
  properties: {
    id: p.text().primary(),
    organization: () => p.manyToOne(Organization).mapToPk().deleteRule('cascade'),
    /** The mode of the key that made it: a key sees only its own mode's payments. */
    mode: p.enum(PAYMENT_MODES).default('test'),
    status: p.enum(PAYMENT_STATUSES),
    isoCode: p.enum(ISO_CODES),
    isoReason: p.enum(REASON_CODES).nullable(),
    provider: p.string().length(50),
    bankId: p.string().length(100).nullable(),
    // Plain `numeric` (no scale): '10.50' is stored and read back as '10.50', never as a float.
    amountValue: p.decimal('string').columnType('numeric').check('amount_value > 0'),
    currency: p.string().length(3),
    fromAccount: p.json<Account>().nullable(),
    toAccount: p.json<Account>(),
    reference: p.string().length(140),
    endToEndId: p.string().length(35),
    flowType: p.enum(FLOW_TYPES),
    returnUrl: p.text().nullable(),
    mockBank: p.json<MockBankScenario>().nullable(),
    approvedAt: p.datetime().nullable(),
    timing: p.json<ResolvedTiming>().nullable(),
    errorCode: p.string().length(50).nullable(),
    errorMessage: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    expiresAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    /** When the payment next changes by itself (timeline step or expiry); null once finished. */
    nextDueAt: p.datetime().nullable(),
    /**
     * A real provider's own statuses as its bank reported them, by the provider's names (obie:
     * consent, payment); null for the Mock bank. (`consent_status` and `bank_status`, obie's
     * before, stay unmapped for one release: Migration20261128130000_provider_status.)
     */
    providerStatus: p.json<ProviderStatus>().nullable(),
    /** How far the payment's test clock is ahead of the real time (Mock bank only; shared `paymentNow`). */
    clockOffsetSeconds: p.integer().default(0),
    version: p.integer().version(),
  },
  indexes: [
    // The list: newest first per organization and mode (every list reads one mode), id breaking
    // ties so pages never overlap. Plain ascending columns: Postgres reads them backwards for
    // `created_at desc, id desc`.
    { name: 'payment_org_mode_created_idx', properties: ['organization', 'mode', 'createdAt', 'id'] },
    { name: 'payment_org_status_created_idx', properties: ['organization', 'status', 'createdAt', 'id'] },
    { name: 'payment_org_provider_created_idx', properties: ['organization', 'provider', 'createdAt', 'id'] },
    // The sweeper's "what is overdue" and the list's per-organization catch-up.
    { name: 'payment_next_due_idx', properties: ['nextDueAt'], where: 'next_due_at is not null' },
    {
      name: 'payment_org_next_due_idx',
      properties: ['organization', 'nextDueAt'],
      where: 'next_due_at is not null',
    },
  ],
});
export type Payment = InferEntity<typeof Payment>;
