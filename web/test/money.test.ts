import { describe, expect, it } from 'vitest';
import { formatAmount } from '../src/format/money.ts';

describe('formatAmount', () => {
  it('formats for the locale and currency', () => {
    expect(formatAmount('1234.5', 'GBP', 'en-GB')).toBe('£1,234.50');
    expect(formatAmount('1234.5', 'EUR', 'de-DE')).toBe('1.234,50\u00a0€');
    expect(formatAmount('1000', 'JPY', 'en-GB')).toBe('JP¥1,000');
  });

  it('shows sub-cent decimals instead of rounding them away', () => {
    expect(formatAmount('10.1234', 'GBP', 'en-GB')).toBe('£10.1234');
  });

  it('keeps every digit of large amounts (no float on the way)', () => {
    expect(formatAmount('999999999999999.9999', 'EUR', 'en-GB')).toBe('€999,999,999,999,999.9999');
  });

  it('falls back to plain text for a currency Intl does not know', () => {
    expect(formatAmount('5', 'XX1', 'en-GB')).toBe('5 XX1');
  });
});
