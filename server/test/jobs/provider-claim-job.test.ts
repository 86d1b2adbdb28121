import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { systemClock } from '../../src/clock.ts';
import { ProviderClaim } from '../../src/db/entities/index.ts';
import { RECONCILE_CLAIM_AFTER_MS } from '../../src/payments/provider-claims.ts';
import { CREATE_BODY, createWorkerTestApp, waitFor } from './worker-harness.ts';

/**
 * The reconcile job end to end: a bank choice whose process died mid-call leaves only its claim;
 * the `provider.claim` job (queued by the scheduler port, worked by a worker process through
 * pg-boss) asks the provider and applies the answer.
 */
const harness = await createWorkerTestApp({ clock: systemClock });
const { app, orm, factories, scheduler, storedStatus } = harness;
const merchant = await factories.createMerchant();

/** The worker lives a little more than the reconcile delay in the future: the claim is stale to it. */
const later: Clock = { now: () => new Date(Date.now() + RECONCILE_CLAIM_AFTER_MS + 1_000) };

describe('provider.claim job', () => {
  it('settles a start claim left by a crashed process: the Mock bank had it, so AUTHORIZING', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/payments',
      headers: merchant.headers,
      payload: { ...CREATE_BODY, flowType: 'HOSTED_PAGES' },
    });
    expect(response.statusCode).toBe(201);
    const { paymentId } = response.json().data;
    await orm.em.fork().insert(ProviderClaim, {
      payment: paymentId,
      claimId: 'clm_crashed',
      action: 'start',
      bankId: 'mock-gb-albion',
      claimedAt: new Date(),
    });
    await scheduler.providerClaimDue(paymentId, new Date());
    await harness.startWorkerProcess({ clock: later });

    expect(
      await waitFor(
        () => storedStatus(paymentId),
        (status) => status === 'AUTHORIZING',
        15_000,
      ),
    ).toBe('AUTHORIZING');
    expect(await orm.em.fork().count(ProviderClaim, { payment: paymentId })).toBe(0);
  });
});
