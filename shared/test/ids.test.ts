import { describe, expect, it } from 'vitest';
import { BANK_ID_PATTERN, MOCK_BANK_CATALOGUE, newPaymentId, PAYMENT_ID_PATTERN } from '../src/index.ts';

// The SDK refuses any id outside these patterns before it builds a path, so every id the
// service issues must match them.
describe('id formats', () => {
  it('every issued payment id matches PAYMENT_ID_PATTERN', () => {
    for (let i = 0; i < 200; i++) expect(newPaymentId()).toMatch(PAYMENT_ID_PATTERN);
  });

  it('every catalogue bank id matches BANK_ID_PATTERN', () => {
    for (const bank of MOCK_BANK_CATALOGUE) expect(bank.id).toMatch(BANK_ID_PATTERN);
  });

  it('ids that would change the endpoint match neither', () => {
    for (const id of [
      '',
      '.',
      '..',
      'providers',
      'a/b',
      'pay_x/..',
      '%2e',
      'pay_000000000000000000000000/',
    ]) {
      expect(PAYMENT_ID_PATTERN.test(id), id).toBe(false);
      expect(BANK_ID_PATTERN.test(id), id).toBe(false);
    }
  });
});
