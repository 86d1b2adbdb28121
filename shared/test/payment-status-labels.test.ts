import { describe, expect, it } from 'vitest';
import {
  PAYMENT_STATUS_LABELS,
  PAYMENT_STATUSES,
  statusOutcome,
  TERMINAL_STATUSES,
} from '../src/payment-statuses.ts';

describe('statuses for people', () => {
  it('every status has a word, and no two share one', () => {
    const words = PAYMENT_STATUSES.map((status) => PAYMENT_STATUS_LABELS[status]);
    expect(words.every((word) => typeof word === 'string' && word.length > 0)).toBe(true);
    expect(new Set(words).size).toBe(PAYMENT_STATUSES.length);
  });

  it('a cancelled or expired payment is stopped, not failed; only unfinished ones are under way', () => {
    expect(statusOutcome('COMPLETED')).toBe('paid');
    expect(statusOutcome('FAILED')).toBe('failed');
    expect(statusOutcome('CANCELLED')).toBe('stopped');
    expect(statusOutcome('EXPIRED')).toBe('stopped');
    for (const status of PAYMENT_STATUSES) {
      expect(statusOutcome(status) === 'under-way').toBe(
        !(TERMINAL_STATUSES as readonly string[]).includes(status),
      );
    }
  });
});
