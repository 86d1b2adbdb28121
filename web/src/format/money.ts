import { pageLocale } from './locale.ts';

/**
 * Display text of an amount. The decimal string goes to Intl as a string (never through a
 * float), so "12345678901234.5678" keeps every digit; sub-cent decimals are shown, not rounded.
 */
export const formatAmount = (value: string, currency: string, locale = pageLocale()): string => {
  const decimals = value.split('.')[1]?.length ?? 0;
  try {
    const base = new Intl.NumberFormat(locale, { style: 'currency', currency });
    const currencyDigits = base.resolvedOptions().maximumFractionDigits ?? 2;
    const format = new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: currencyDigits,
      maximumFractionDigits: Math.max(currencyDigits, decimals),
    });
    return format.format(value as Intl.StringNumericLiteral);
  } catch {
    // An unknown currency code: still show what is being paid.
    return `${value} ${currency}`;
  }
};
