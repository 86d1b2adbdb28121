import { createHash, timingSafeEqual } from 'node:crypto';
import { randomId } from '@pis/shared';

/**
 * Key format: `pis_` + 8 lookup characters + 40 secret characters (base62, ~286 random bits).
 * The first 12 characters (`prefix`) are not secret: they find the row and are shown to the
 * operator. Only the SHA-256 of the whole key is stored; a fast hash is right here because the
 * key is long random data, not a password.
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

/** Constant-time comparison of two hex SHA-256 digests. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}
