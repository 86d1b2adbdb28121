import { describe, expect, it } from 'vitest';
import { etagMatches, MAX_WAIT_SECONDS, paymentEtag, preferredWaitSeconds } from '../src/live-reads.ts';

describe('live reads', () => {
  it('Prefer: wait is read among other preferences and capped at 60', () => {
    expect(preferredWaitSeconds(undefined)).toBeUndefined();
    expect(preferredWaitSeconds('respond-async')).toBeUndefined();
    expect(preferredWaitSeconds('wait=10')).toBe(10);
    expect(preferredWaitSeconds('respond-async, wait=5')).toBe(5);
    expect(preferredWaitSeconds(['return=minimal', 'WAIT = "7"'])).toBe(7);
    expect(preferredWaitSeconds('wait=600')).toBe(MAX_WAIT_SECONDS);
    expect(preferredWaitSeconds('wait=abc')).toBeUndefined();
  });

  it('the ETag changes with the payment and only with it', () => {
    const payment = { paymentId: 'pay_1', status: 'AUTHORIZING', statusHistory: [{ status: 'PENDING' }] };
    const etag = paymentEtag(payment);
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(paymentEtag(structuredClone(payment))).toBe(etag);
    expect(paymentEtag({ ...payment, status: 'AUTHORIZED' })).not.toBe(etag);
  });

  it('If-None-Match: exact, in a list or weak; * never holds a read', () => {
    expect(etagMatches(undefined, '"a"')).toBe(false);
    expect(etagMatches('"a"', '"a"')).toBe(true);
    expect(etagMatches('"b", "a"', '"a"')).toBe(true);
    expect(etagMatches('W/"a"', '"a"')).toBe(true);
    expect(etagMatches('*', '"a"')).toBe(false);
    expect(etagMatches('"b"', '"a"')).toBe(false);
  });
});
