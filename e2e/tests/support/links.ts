import { inject } from 'vitest';
import { signLinkToken } from '../../../server/src/links/link-token.ts';

/**
 * Links a merchant could never get from the API: expired ones (signed by the server's own
 * token code with the run's secret, an expiry in the past) and tampered ones.
 */
export const expiredLink = (page: 'hosted' | 'mock-bank', paymentId: string): string => {
  const token = signLinkToken(inject('linkSigningSecret'), {
    paymentId,
    purpose: page,
    expiresAt: new Date(Date.now() - 60_000),
  });
  return `${inject('baseUrl')}/${page === 'hosted' ? 'pay' : 'mock-bank'}/${token}`;
};

/** The same link with one character of its signature changed. */
export const tamperedLink = (url: string): string => {
  const last = url.at(-1);
  return `${url.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
};
