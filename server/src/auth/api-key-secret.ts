import { createHash } from 'node:crypto';
import { randomId } from '@pis/shared';

/**
 * Key format: `pis_` + 8 lookup characters + 40 secret characters (base62, ~286 random bits).
 * The first 12 characters (`prefix`) are not secret: they are shown to people to tell keys
 * apart. Only the SHA-256 of the whole key is stored, and it is what finds the row; a fast hash
 * is right here because the key is long random data, not a password.
 */
const KEY_PREFIX = 'pis_';
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8;

export interface GeneratedApiKey {
  apiKey: string;
  prefix: string;
  keyHash: string;
}

export function generateApiKey(): GeneratedApiKey {
  const apiKey = randomId('pis', 48);
  return { apiKey, prefix: apiKey.slice(0, DISPLAY_PREFIX_LENGTH), keyHash: hashApiKey(apiKey) };
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey, 'utf8').digest('hex');
}

const KEY_FORMAT = /^pis_[0-9A-Za-z]{48}$/;

/** Prefix of a presented key, or undefined when it cannot be one of ours (no database lookup then). */
export function prefixOf(apiKey: string): string | undefined {
  return KEY_FORMAT.test(apiKey) ? apiKey.slice(0, DISPLAY_PREFIX_LENGTH) : undefined;
}

/**
 * Anything in `text` that could be one of our keys, cut to its non-secret prefix: for messages
 * that may quote what an operator typed (a key pasted in the wrong place must not be echoed).
 */
export const redactApiKeys = (text: string): string =>
  text.replace(/pis_[0-9A-Za-z]{8}[0-9A-Za-z]*/g, (key) => `${key.slice(0, DISPLAY_PREFIX_LENGTH)}...`);
