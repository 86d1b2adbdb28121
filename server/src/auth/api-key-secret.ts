import { createHash } from 'node:crypto';
import { type PaymentMode, randomId } from '@pis/shared';

/**
 * Key format: `pis_<mode>_` (`pis_test_`, `pis_live_`) + 8 lookup characters + 40 secret
 * characters (base62, ~286 random bits). Keys made before modes existed are `pis_` + 48 and are
 * test keys (their row says so). Everything up to the 8 lookup characters (`prefix`) is not
 * secret: it is shown to people to tell keys apart, the mode included. Only the SHA-256 of the
 * whole key is stored, and it is what finds the row; a fast hash is right here because the key
 * is long random data, not a password. The mode itself is read from the row, never the text.
 */
const LOOKUP_CHARACTERS = 8;

export interface GeneratedApiKey {
  apiKey: string;
  prefix: string;
  keyHash: string;
}

export function generateApiKey(mode: PaymentMode = 'test'): GeneratedApiKey {
  const apiKey = randomId(`pis_${mode}`, 48);
  return { apiKey, prefix: prefixOf(apiKey) as string, keyHash: hashApiKey(apiKey) };
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

const KEY_FORMAT = /^(pis_(?:(?:test|live)_)?[0-9A-Za-z]{8})[0-9A-Za-z]{40}$/;

/** Prefix of a presented key, or undefined when it cannot be one of ours (no database lookup then). */
export function prefixOf(apiKey: string): string | undefined {
  return KEY_FORMAT.exec(apiKey)?.[1];
}

/**
 * Anything in `text` that could be one of our keys, cut to its non-secret prefix: for messages
 * that may quote what an operator typed (a key pasted in the wrong place must not be echoed).
 */
export const redactApiKeys = (text: string): string =>
  text.replace(
    new RegExp(`(pis_(?:(?:test|live)_)?[0-9A-Za-z]{${LOOKUP_CHARACTERS}})[0-9A-Za-z]*`, 'g'),
    (_key, prefix: string) => `${prefix}...`,
  );
