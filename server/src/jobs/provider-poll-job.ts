import { z } from 'zod';
import { defineJob } from './job-definition.ts';

/**
 * A payment at a real provider is due for a read (payments/poll-provider.ts): the handler reads
 * it and queues the next poll with backoff. One queued poll per payment and attempt.
 */
export const providerPollJob = defineJob({
  name: 'provider.poll',
  payload: z.object({ paymentId: z.string().min(1), attempt: z.int().min(1) }),
  queue: {
    policy: 'short',
    expireInSeconds: 120,
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
    deleteAfterSeconds: 60 * 60,
  },
  work: { batchSize: 20, localConcurrency: 2, pollingIntervalSeconds: 0.5 },
  handler: async (payloads, deps) => {
    if (!deps.pollProviderPayment) return;
    for (const { paymentId, attempt } of payloads) await deps.pollProviderPayment(paymentId, attempt);
  },
});
