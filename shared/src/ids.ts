const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Unguessable opaque id: prefix + 24 base62 characters (~142 bits) from the platform CSPRNG. */
export const randomId = (prefix: string, length = 24): string => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(length * 2));
  let id = '';
  for (const byte of bytes) {
    // 248 = 4 * 62: rejecting the rest keeps every character equally likely.
    if (byte < 248) id += ALPHABET[byte % 62];
    if (id.length === length) break;
  }
  return id.length === length ? `${prefix}_${id}` : randomId(prefix, length);
};

export const newPaymentId = () => randomId('pay');

/** ISO 20022 EndToEndId is Max35Text: 32 upper-case hex characters. */
export const newEndToEndId = () => globalThis.crypto.randomUUID().replaceAll('-', '').toUpperCase();

/**
 * The shape of every payment id {@link newPaymentId} issues. A client checks an id against it
 * before putting it into a path: `.`, `..` or `providers` would otherwise reach another endpoint.
 */
export const PAYMENT_ID_PATTERN = /^pay_[0-9A-Za-z]{24}$/;

/**
 * The shape of the bank ids the catalogue issues: lower-case words joined by hyphens, provider
 * first (`mock-gb-albion`). At least one hyphen, so no bank id can name a sibling route
 * (`/api/banks/providers`).
 */
export const BANK_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)+$/;
