import { customerLinkKind, customerLinkPath } from '@pis/shared';
import type { Config } from '../config.ts';
import {
  LINK_LIFETIME_SECONDS,
  type LinkClaims,
  type LinkPurpose,
  signLinkToken,
  verifyLinkToken,
} from './link-token.ts';

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
  purpose: Exclude<LinkPurpose, 'bank'>,
  paymentId: string,
  now: Date,
  notAfter?: Date,
): CustomerLink {
  return signedLink(config, purpose, undefined, paymentId, now, notAfter);
}

/**
 * A real provider's customer link: ours, at `/providers/<provider>/authorize/<token>`, which
 * sends the customer on to the bank's page when opened (payments/provider-callbacks.ts).
 */
export function bankLink(
  config: LinkConfig,
  provider: string,
  paymentId: string,
  now: Date,
  notAfter?: Date,
): CustomerLink {
  return signedLink(config, 'bank', provider, paymentId, now, notAfter);
}

/**
 * The link a new customer link for a payment is: its hosted page, or for API_ONLY the Mock bank's
 * page or its provider's link of ours (only for providers whose `linkKind` is `ours`).
 */
export function paymentLink(
  config: LinkConfig,
  payment: { id: string; flowType: string; provider: string },
  now: Date,
): CustomerLink {
  return signedLink(config, customerLinkKind(payment), payment.provider, payment.id, now, undefined);
}

function signedLink(
  config: LinkConfig,
  purpose: LinkPurpose,
  provider: string | undefined,
  paymentId: string,
  now: Date,
  notAfter: Date | undefined,
): CustomerLink {
  // Whole seconds: the token stores Unix seconds, so the claimed expiry equals the real one.
  const full = Math.floor(now.getTime() / 1000) * 1000 + LINK_LIFETIME_SECONDS[purpose] * 1000;
  const bound = notAfter === undefined ? full : Math.floor(notAfter.getTime() / 1000) * 1000;
  const claims: LinkClaims = { paymentId, purpose, expiresAt: new Date(Math.min(full, bound)) };
  const token = signLinkToken(config.linkSigningSecret, claims);
  return {
    url: `${config.publicBaseUrl}${customerLinkPath(purpose, provider ?? '')}/${token}`,
    expiresAt: claims.expiresAt,
  };
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

/** How long after its expiry a link still shows what it was for: the customer's "way back". */
export const EXPIRED_LINK_SHOWN_MS = 24 * 60 * 60 * 1000;

/**
 * The payment a genuine link that expired less than a day ago names, or null: only for the page
 * that says the link has expired, to show what it was for and the way back to the shop, never to
 * act on it. The token is verified as ever (as of its last valid instant). A link found in an old
 * mail or a browser's history shows nothing of its payment (issue 34's review, M2).
 */
export function paymentOfExpiredLink(
  config: LinkConfig,
  token: string,
  purpose: LinkPurpose,
  now: Date,
): string | null {
  try {
    const claims = openCustomerLink(config, token, purpose, new Date(0));
    const expiredFor = now.getTime() - claims.expiresAt.getTime();
    return expiredFor >= 0 && expiredFor < EXPIRED_LINK_SHOWN_MS ? claims.paymentId : null;
  } catch {
    return null;
  }
}
