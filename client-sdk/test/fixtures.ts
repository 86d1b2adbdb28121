import { vi } from 'vitest';
import type { Payment, PaymentStatus } from '../src/index.ts';

export const BASE_URL = 'https://pis.test';
export const API_KEY = 'pis_test_key';
/** Ids in the shape the service issues (the client refuses any other in a path). */
export const PAYMENT_ID = 'pay_0123456789abcdefghijABCD';
export const OTHER_PAYMENT_ID = 'pay_ZYXWVUTSRQPONMLKJIHGFEDC';

/** A payment as the service would return it, in the given status. */
export const paymentFixture = (status: PaymentStatus = 'AUTHORIZING', paymentId = PAYMENT_ID): Payment => ({
  paymentId,
  status,
  isoStatus: { code: 'PDNG', name: 'Pending', description: 'Pending' },
  provider: 'mock',
  amount: { value: '10.50', currency: 'GBP' },
  toAccount: { accountName: 'Acme Ltd', sortCode: '040004', accountNumber: '12345678' },
  reference: { reference: 'Order 42', endToEndId: 'E2E42' },
  flowType: 'API_ONLY',
  createdAt: '2026-11-21T12:00:00.000Z',
  updatedAt: '2026-11-21T12:00:00.000Z',
});

/** Runs a call to completion under fake timers, returning its result or its error. */
export const settle = async <T>(promise: Promise<T>): Promise<T | unknown> => {
  const outcome = promise.then(
    (value) => value,
    (error: unknown) => error,
  );
  await vi.runAllTimersAsync();
  return outcome;
};
