/**
 * The reference a payment gets when the merchant gives none: what the customer reads at the
 * bank (the Mock bank page, an Open Banking bank's consent page, the bank statement), so it
 * names the merchant and looks like an order number, never a 32-character hex id.
 *
 * Short enough for what banks keep: at most 35 characters (Open Banking's `Reference`, Max35Text),
 * the code at its end so that a bank cutting at 18 (Faster Payments) still shows the name's start.
 * Only the Faster Payments character set (letters, digits, space and `/-?:().,'+`): other
 * characters of the name become spaces. The code comes from the payment's end-to-end id, so it
 * is the payment's own and the same every time it is shown.
 */
export const DEFAULT_REFERENCE_MAX = 35;
const CODE_LENGTH = 6;
/** Crockford's base 32: no I, L, O, U, so a code read aloud at a counter is not misheard. */
const CODE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** Six characters from the end-to-end id's first 30 bits (hex). */
export const referenceCode = (endToEndId: string): string => {
  let value = Number.parseInt(endToEndId.replace(/[^0-9a-f]/gi, '').slice(0, 8) || '0', 16);
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index += 1) {
    code = `${CODE_ALPHABET[value % 32]}${code}`;
    value = Math.floor(value / 32);
  }
  return code;
};

export function defaultReference(merchantName: string, endToEndId: string): string {
  const name = merchantName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 /\-?:().,'+]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, DEFAULT_REFERENCE_MAX - CODE_LENGTH - 1)
    .trim();
  const code = referenceCode(endToEndId);
  return name ? `${name} ${code}` : `Payment ${code}`;
}
