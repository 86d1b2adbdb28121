import type { Config } from '../config.ts';
import {
  LINK_LIFETIME_SECONDS,
  type LinkClaims,
  type LinkPurpose,
  signLinkToken,
  verifyLinkToken,
} from './link-token.ts';

/** The page each link opens (routes of the web app; `obie`: the server route that sends on to the bank). */
const PAGE_PATH: Record<LinkPurpose, string> = {
  hosted: '/pay',
  'mock-bank': '/mock-bank',
  obie: '/providers/obie/authorize',
};

export type LinkConfig = Pick<Config, 'publicBaseUrl' | 'linkSigningSecret' | 'previousLinkSigningSecret'>;

export interface CustomerLink {
  url: string;
  expiresAt: Date;
}

/**
 * A fresh signed link to a customer page, valid for that page's lifetime from `now`. A link
 * derived from another one (the Mock bank link a hosted page hands out) passes `notAfter`, the
 * expiry of the link it came from: whoever holds a link can never get one that outlives it.
 */
export function customerLink(
  config: LinkConfig,
  purpose: LinkPurpose,
  paymentId: string,
  now: Date,
  notAfter?: Date,
): CustomerLink {
  // Whole seconds: the token stores Unix seconds, so the claimed expiry equals the real one.
  const full = Math.floor(now.getTime() / 1000) * 1000 + LINK_LIFETIME_SECONDS[purpose] * 1000;
  const bound = notAfter === undefined ? full : Math.floor(notAfter.getTime() / 1000) * 1000;
  const claims: LinkClaims = { paymentId, purpose, expiresAt: new Date(Math.min(full, bound)) };
  const token = signLinkToken(config.linkSigningSecret, claims);
  return { url: `${config.publicBaseUrl}${PAGE_PATH[purpose]}/${token}`, expiresAt: claims.expiresAt };
}

/** Verifies a customer link's token with the current secret, or the previous one during a rotation. */
export function openCustomerLink(
  config: LinkConfig,
  token: string,
  purpose: LinkPurpose,
  now: Date,
): LinkClaims {
  const secrets = [config.linkSigningSecret];
  if (config.previousLinkSigningSecret) secrets.push(config.previousLinkSigningSecret);
  return verifyLinkToken(secrets, token, purpose, now);
}

/**
 * The payment a genuine but expired link names, or null: only for the page that says the link
 * has expired, to show what it was for and the way back to the shop, never to act on it. The
 * token is verified as ever; the instant 0 is before any expiry, so only the expiry is not held.
 */
export function paymentOfExpiredLink(config: LinkConfig, token: string, purpose: LinkPurpose): string | null {
  try {
    return openCustomerLink(config, token, purpose, new Date(0)).paymentId;
  } catch {
    return null;
  }
}
