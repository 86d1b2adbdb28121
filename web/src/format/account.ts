/**
 * UK sort code as people write it, 12-34-56, whatever separators it came with; anything that is
 * not six digits is shown as given rather than guessed at.
 */
export const formatSortCode = (sortCode: string): string => {
  const digits = sortCode.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(digits) ? `${digits.slice(0, 2)}-${digits.slice(2, 4)}-${digits.slice(4)}` : sortCode;
};

/** IBAN in groups of four, as printed on statements: GB33 BUKB 2020 1555 5555 55. */
export const formatIban = (iban: string): string =>
  iban
    .replace(/\s+/g, '')
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, '$1 ');
