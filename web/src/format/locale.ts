/** The customer's language as the browser reports it. */
export const pageLocale = (): string => navigator.languages?.[0] ?? navigator.language ?? 'en-GB';

export const formatTime = (iso: string, locale = pageLocale()): string =>
  new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));

export const countryName = (code: string, locale = pageLocale()): string => {
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
};
