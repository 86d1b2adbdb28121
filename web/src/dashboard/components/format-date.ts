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
