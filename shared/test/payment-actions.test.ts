import { describe, expect, it } from 'vitest';
import { PAYMENT_STATUSES, paymentActions } from '../src/index.ts';

// The dashboard's buttons follow the spec's rules: cancel only while unfinished; approve and
// reject only for a Mock bank payment waiting for the customer (AUTHORIZING).
describe('paymentActions', () => {
  it.each(PAYMENT_STATUSES)('%s, mock and another provider', (status) => {
    const unfinished = !['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(status);
    const waiting = status === 'AUTHORIZING';
    expect(paymentActions({ status, provider: 'mock' })).toEqual({
      cancel: unfinished,
      approve: waiting,
      reject: waiting,
      advance: unfinished,
    });
    expect(paymentActions({ status, provider: 'somebank' })).toEqual({
      cancel: unfinished,
      approve: false,
      reject: false,
      advance: false,
    });
  });
});
