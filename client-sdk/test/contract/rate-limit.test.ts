import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { withinOneWindow } from '../../../server/test/helpers/rate-limit-window.ts';
import { createTestApp } from '../../../server/test/helpers/test-app.ts';
import { PaymentsApiError, PaymentsClient } from '../../src/index.ts';

// The real service's rate limit (Postgres-counted), with one read per 2 s window per key: any
// two calls a few milliseconds apart share a window, so the second is refused with Retry-After.
const rateLimits = {
  enabled: true,
  windowSeconds: 2,
  apiReads: 1,
  apiWrites: 1,
  pages: 1,
  dashboard: 600,
  waitsPerOrganization: 1_000,
  waitsPerProcess: 10_000,
  signUpsPerAddress: 10,
  signInsPerAddress: 30,
};
const { app, factories } = await createTestApp({ config: { rateLimits } });
await app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

/** fetch that records each answer's status and Retry-After, and when it arrived. */
const observedFetch = () => {
  const answers: { status: number; retryAfter: string | null; at: number }[] = [];
  const fetch = async (input: string, init: RequestInit) => {
    const response = await globalThis.fetch(input, init);
    answers.push({
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      at: Date.now(),
    });
    return response;
  };
  return { fetch, answers };
};

describe("the SDK against the service's rate limit", () => {
  it('waits out Retry-After on 429 and then succeeds', async () => {
    const { apiKey } = await factories.createMerchant();
    const { fetch, answers } = observedFetch();
    const client = new PaymentsClient({ apiKey, baseUrl, fetch, maxRetries: 3 });
    // Both calls in one 2 s window: start at its beginning.
    await withinOneWindow(rateLimits.windowSeconds, 1_950);
    await client.banks.providers();
    await client.banks.providers();
    const statuses = answers.map((answer) => answer.status);
    expect(statuses[0]).toBe(200);
    expect(statuses.at(-1)).toBe(200);
    const refusedAt = statuses.indexOf(429);
    expect(refusedAt).toBeGreaterThan(0);
    const refused = answers[refusedAt];
    const retried = answers[refusedAt + 1];
    if (!refused || !retried) throw new Error('a 429 and its retry expected');
    const retryAfterSeconds = Number(refused.retryAfter);
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(2);
    // The retry went out no sooner than the service asked (less a little for the answer's own trip).
    expect(retried.at - refused.at).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - 50);
  });

  it('without retries, surfaces 429 RATE_LIMITED with retryAfterMs', async () => {
    const { apiKey } = await factories.createMerchant();
    const client = new PaymentsClient({ apiKey, baseUrl, maxRetries: 0 });
    // Both calls in one 2 s window: start at its beginning.
    await withinOneWindow(rateLimits.windowSeconds, 1_950);
    await client.banks.providers();
    const error = await client.banks.providers().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PaymentsApiError);
    expect(error).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect((error as PaymentsApiError).retryAfterMs).toBeGreaterThanOrEqual(1000);
  });
});
