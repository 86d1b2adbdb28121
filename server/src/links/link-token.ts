import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError, CUSTOMER_LINK_LIFETIME_SECONDS, type CustomerLinkKind } from '@pis/shared';
import { z } from 'zod';

/**
 * Customer links carry a compact signed token: `keyId.base64url(payload).base64url(mac)`, the MAC
 * an HMAC-SHA256 over `keyId.payload` and the key id naming the secret that signed it (see
 * linkKeyId). The payload names the payment, what the link is for
 * and when it stops working; nothing else is needed to serve the page, and nothing in it is
 * secret (ids are unguessable anyway, the MAC is what grants access).
 */
export type LinkPurpose = CustomerLinkKind;

export const LINK_LIFETIME_SECONDS = CUSTOMER_LINK_LIFETIME_SECONDS;

const LINK_NAMES: Record<LinkPurpose, string> = {
  hosted: 'payment page',
  'mock-bank': 'Mock bank',
  bank: 'bank sign-in',
};

export interface LinkClaims {
  paymentId: string;
  purpose: LinkPurpose;
  expiresAt: Date;
}

/** Short keys keep the URL short: p = payment id, u = purpose, e = expiry (Unix seconds). */
const Payload = z.object({
  p: z.string().min(1).max(200),
  // 'obie': a real provider's link as builds before the provider seam signed it (links live 30
  // minutes; a later release drops it). It reads as 'bank'.
  u: z
    .enum(['hosted', 'mock-bank', 'bank', 'obie'])
    .transform((purpose) => (purpose === 'obie' ? 'bank' : purpose)),
  e: z.int(),
});

const mac = (secret: string, signed: string) => createHmac('sha256', secret).update(signed, 'utf8').digest();

/** Per secret, computed once: an HMAC per signed link was ~2.5% of a create's CPU. */
const keyIds = new Map<string, string>();

/**
 * A short public name for a secret (an HMAC of a constant, so it tells nothing about the secret),
 * written into every token so that during a rotation the verifier knows which of the current and
 * previous secrets signed it without trying both.
 */
export function linkKeyId(secret: string): string {
  let id = keyIds.get(secret);
  if (id === undefined) {
    id = createHmac('sha256', secret)
      .update('pis-link-key-id', 'utf8')
      .digest()
      .subarray(0, 6)
      .toString('base64url');
    // A process knows one or two secrets (current and previous); never let it grow.
    if (keyIds.size >= 4) keyIds.clear();
    keyIds.set(secret, id);
  }
  return id;
}

/**
 * The secrets links verify with: the current one (which signs) first, then the previous one
 * during a rotation, so links already sent keep working until they expire.
 */
export type LinkSecrets = string | readonly string[];

export function signLinkToken(secret: string, claims: LinkClaims): string {
  const payload = {
    p: claims.paymentId,
    u: claims.purpose,
    e: Math.floor(claims.expiresAt.getTime() / 1000),
  };
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const signed = `${linkKeyId(secret)}.${encoded}`;
  return `${signed}.${mac(secret, signed).toString('base64url')}`;
}

/**
 * Bytes of a base64url part, or undefined unless the text is exactly their canonical encoding:
 * Node's decoder skips what it does not understand (`=`, `%`, spare trailing bits), so without
 * this `TOKEN==` or `TOKEN%%` would verify as well as `TOKEN`, and one link would have many
 * spellings.
 */
function canonicalBytes(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

const invalid = () =>
  new AppError('LINK_INVALID', 'This payment link is not valid. Ask the merchant for a new one.');

/**
 * The claims of a genuine, unexpired token for `purpose`. Anything altered, truncated, signed
 * with another secret or meant for the other page is LINK_INVALID (one message: a forger learns
 * nothing); a genuine but old token is LINK_EXPIRED, saying how long such links last.
 */
export function verifyLinkToken(
  secrets: LinkSecrets,
  token: string,
  purpose: LinkPurpose,
  now: Date,
): LinkClaims {
  const [keyId, encoded, signature, extra] = token.split('.');
  if (!keyId || !encoded || !signature || extra !== undefined) throw invalid();
  const secret = (typeof secrets === 'string' ? [secrets] : secrets).find(
    (candidate) => linkKeyId(candidate) === keyId,
  );
  const given = canonicalBytes(signature);
  const payloadBytes = canonicalBytes(encoded);
  if (!secret || !given || !payloadBytes) throw invalid();
  const expected = mac(secret, `${keyId}.${encoded}`);
  // Length first: timingSafeEqual throws on different lengths.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let payload: z.infer<typeof Payload>;
  try {
    payload = Payload.parse(JSON.parse(payloadBytes.toString('utf8')));
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
