import { pageLocale } from '../../format/locale.ts';

/** Date and time as the merchant's browser writes them, e.g. "22 Nov 2026, 14:05". */
export const formatDateTime = (iso: string | null | undefined, locale = pageLocale()): string =>
  iso
    ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso))
    : '—';

/** With seconds, for a payment's timeline where steps can be seconds apart. */
export const formatPreciseTime = (iso: string, locale = pageLocale()): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(new Date(iso));

export const formatDay = (day: string, locale = pageLocale()): string =>
  new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(day));

const UNITS: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
];

/** "5 minutes ago", "in 2 hours", "yesterday": the nearest whole unit, in the browser's language. */
export const formatRelative = (iso: string, now = Date.now(), locale = pageLocale()): string => {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  if (Math.abs(seconds) < 45) return format.format(0, 'second');
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(seconds, 'second');
};
