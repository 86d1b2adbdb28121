import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, HOSTED_LINK_TTL_SECONDS, MOCK_BANK_LINK_TTL_SECONDS } from '@pis/shared';
import { z } from 'zod';

/**
 * Customer links carry a compact signed token: `base64url(payload).base64url(mac)`, the MAC an
 * HMAC-SHA256 over the encoded payload. The payload names the payment, what the link is for
 * and when it stops working; nothing else is needed to serve the page, and nothing in it is
 * secret (ids are unguessable anyway, the MAC is what grants access).
 */
export type LinkPurpose = 'hosted' | 'mock-bank';

export const LINK_LIFETIME_SECONDS: Record<LinkPurpose, number> = {
  hosted: HOSTED_LINK_TTL_SECONDS,
  'mock-bank': MOCK_BANK_LINK_TTL_SECONDS,
};

const LINK_NAMES: Record<LinkPurpose, string> = { hosted: 'payment page', 'mock-bank': 'Mock bank' };

export interface LinkClaims {
  paymentId: string;
  purpose: LinkPurpose;
  expiresAt: Date;
}

/** Short keys keep the URL short: p = payment id, u = purpose, e = expiry (Unix seconds). */
const Payload = z.object({ p: z.string().min(1).max(200), u: z.enum(['hosted', 'mock-bank']), e: z.int() });

const mac = (secret: string, encodedPayload: string) =>
  createHmac('sha256', secret).update(encodedPayload, 'utf8').digest();

export function signLinkToken(secret: string, claims: LinkClaims): string {
  const payload = {
    p: claims.paymentId,
    u: claims.purpose,
    e: Math.floor(claims.expiresAt.getTime() / 1000),
  };
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${encoded}.${mac(secret, encoded).toString('base64url')}`;
}

const invalid = () =>
  new AppError('LINK_INVALID', 'This payment link is not valid. Ask the merchant for a new one.');

/**
 * The claims of a genuine, unexpired token for `purpose`. Anything altered, truncated, signed
 * with another secret or meant for the other page is LINK_INVALID (one message: a forger learns
 * nothing); a genuine but old token is LINK_EXPIRED, saying how long such links last.
 */
export function verifyLinkToken(secret: string, token: string, purpose: LinkPurpose, now: Date): LinkClaims {
  const [encoded, signature, extra] = token.split('.');
  if (!encoded || !signature || extra !== undefined) throw invalid();
  const expected = mac(secret, encoded);
  const given = Buffer.from(signature, 'base64url');
  // Length first: timingSafeEqual throws on different lengths.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let payload: z.infer<typeof Payload>;
  try {
    payload = Payload.parse(JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  if (payload.u !== purpose) throw invalid();
  const expiresAt = new Date(payload.e * 1000);
  if (now.getTime() >= expiresAt.getTime()) {
    const minutes = LINK_LIFETIME_SECONDS[purpose] / 60;
    const lifetime =
      minutes >= 60 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`;
    throw new AppError(
      'LINK_EXPIRED',
      `This ${LINK_NAMES[purpose]} link has expired (links last ${lifetime}). Return to the merchant to start again.`,
    );
  }
  return { paymentId: payload.p, purpose, expiresAt };
}
