import type { Config } from '../config.ts';
import { LINK_LIFETIME_SECONDS, type LinkClaims, type LinkPurpose, signLinkToken } from './link-token.ts';

/** The page each link opens (routes of the web app). */
const PAGE_PATH: Record<LinkPurpose, string> = { hosted: '/pay', 'mock-bank': '/mock-bank' };

export type LinkConfig = Pick<Config, 'publicBaseUrl' | 'linkSigningSecret'>;

export interface CustomerLink {
  url: string;
  expiresAt: Date;
}

/** A fresh signed link to a customer page, valid for that page's lifetime from `now`. */
export function customerLink(
  config: LinkConfig,
  purpose: LinkPurpose,
  paymentId: string,
  now: Date,
): CustomerLink {
  const claims: LinkClaims = {
    paymentId,
    purpose,
    // Whole seconds: the token stores Unix seconds, so the claimed expiry equals the real one.
    expiresAt: new Date(Math.floor(now.getTime() / 1000) * 1000 + LINK_LIFETIME_SECONDS[purpose] * 1000),
  };
  const token = signLinkToken(config.linkSigningSecret, claims);
  return { url: `${config.publicBaseUrl}${PAGE_PATH[purpose]}/${token}`, expiresAt: claims.expiresAt };
}
