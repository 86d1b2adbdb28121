import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, paymentActions } from '../src/index.ts';

// The dashboard's buttons follow the spec's rules: cancel only while unfinished; approve and
// reject only for a Mock bank payment waiting for the customer (AUTHORIZING).
describe('paymentActions', () => {
  it.each(PAYMENT_STATUSES)('%s, mock and another provider', (status) => {
    const unfinished = !['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(status);
    const waiting = status === 'AUTHORIZING';
    expect(paymentActions({ status, provider: 'mock', flowType: 'API_ONLY' })).toEqual({
      cancel: unfinished,
      approve: waiting,
      reject: waiting,
      advance: unfinished,
      link: unfinished,
    });
    expect(paymentActions({ status, provider: 'somebank', flowType: 'HOSTED_PAGES' })).toEqual({
      cancel: unfinished,
      approve: false,
      reject: false,
      advance: false,
      link: unfinished,
    });
    // A real bank's own page (API_ONLY with another provider) is the bank's to issue.
    expect(paymentActions({ status, provider: 'somebank', flowType: 'API_ONLY' }).link).toBe(false);
    // obie's API_ONLY link is ours (it asks the bank for its page when opened): renewable.
    expect(paymentActions({ status, provider: 'obie', flowType: 'API_ONLY' }).link).toBe(unfinished);
  });
});
