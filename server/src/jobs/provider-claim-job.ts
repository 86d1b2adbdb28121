import { z } from 'zod';
import { defineJob } from './job-definition.ts';

/**
 * A provider call was claimed at some moment: from a minute later (RECONCILE_CLAIM_AFTER_MS) the
 * claim is this job's if it still stands. The handler takes every stale claim, not only its own
 * payment's, so a claim whose job was never sent (the process died first) is reconciled by the
 * next one. While a provider still cannot say, the job fails and pg-boss retries it with backoff.
 */
export const providerClaimJob = defineJob({
  name: 'provider.claim',
  payload: z.object({ paymentId: z.string().min(1) }),
  queue: {
    policy: 'standard',
    expireInSeconds: 120,
    retryLimit: 20,
    retryDelay: 30,
    retryBackoff: true,
    deleteAfterSeconds: 24 * 60 * 60,
  },
  work: { batchSize: 20, pollingIntervalSeconds: 2 },
  handler: async (_payloads, deps) => {
    const { open } = await deps.reconcileProviderClaims();
    if (open > 0) throw new Error(`${open} provider claim(s) still unresolved; retrying`);
  },
});
