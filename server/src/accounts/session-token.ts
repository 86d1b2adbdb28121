import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: the cookie's value. Only its SHA-256 is stored. */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** The session row's id for a presented cookie value, or undefined when it cannot be one of ours. */
export const sessionIdOf = (token: string | undefined): string | undefined =>
  token !== undefined && TOKEN_FORMAT.test(token)
    ? createHash('sha256').update(token, 'utf8').digest('hex')
    : undefined;

export const newCsrfToken = (): string => randomBytes(32).toString('hex');

/** Constant-time comparison of the CSRF header with the session's token. */
export function sameToken(expected: string, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const left = Buffer.from(expected, 'utf8');
  const right = Buffer.from(presented, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
