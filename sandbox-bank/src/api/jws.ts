import { CompactSign, compactVerify, decodeProtectedHeader, type JWK, type JWTHeaderParameters } from 'jose';
import { ErrorCode, ObError } from './errors.ts';

/**
 * Detached JWS (`x-jws-signature`) as Open Banking signs messages: PS256, the payload is the
 * exact body (base64url, left out of the header value), and the protected header carries `kid`
 * and the three critical claims `http://openbanking.org.uk/{iat,iss,tan}` listed in `crit`.
 */
export const OB_IAT = 'http://openbanking.org.uk/iat';
export const OB_ISS = 'http://openbanking.org.uk/iss';
export const OB_TAN = 'http://openbanking.org.uk/tan';
const CRIT = [OB_IAT, OB_ISS, OB_TAN];
const CRIT_OPTION = Object.fromEntries(CRIT.map((name) => [name, true]));
/** A signature from the future is refused; a small allowance covers clock skew on one machine. */
const SKEW_SECONDS = 30;
/** The bank's trust anchor name in its own signatures. */
export const BANK_TAN = 'sandbox-bank.localhost';

export async function signDetached(
  body: string,
  key: CryptoKey | Uint8Array | object,
  kid: string,
  iss: string,
) {
  const jws = await new CompactSign(new TextEncoder().encode(body))
    .setProtectedHeader({
      alg: 'PS256',
      kid,
      typ: 'JOSE',
      cty: 'application/json',
      crit: CRIT,
      [OB_IAT]: Math.floor(Date.now() / 1000),
      [OB_ISS]: iss,
      [OB_TAN]: BANK_TAN,
    } as JWTHeaderParameters)
    .sign(key as CryptoKey, { crit: CRIT_OPTION });
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/** Verifies a request's signature against the client's JWKS; `iss` must be the client's id. */
export async function verifyDetached(
  signature: string | undefined,
  body: string,
  keys: JWK[],
  expectedIssuer: string,
  importKey: (jwk: JWK) => Promise<CryptoKey | Uint8Array>,
): Promise<void> {
  if (!signature)
    throw new ObError(400, ErrorCode.SignatureMissing, 'x-jws-signature is required', 'x-jws-signature');
  const parts = signature.split('.');
  if (parts.length !== 3 || parts[1] !== '' || !parts[0] || !parts[2])
    throw new ObError(
      400,
      ErrorCode.SignatureMalformed,
      'x-jws-signature must be a detached JWS (header..signature)',
    );
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(signature);
  } catch {
    throw new ObError(
      400,
      ErrorCode.SignatureMalformed,
      'the JWS protected header is not valid base64url JSON',
    );
  }
  if (header.alg !== 'PS256')
    throw new ObError(400, ErrorCode.SignatureInvalid, 'the JWS must be signed with PS256');
  const crit = Array.isArray(header.crit) ? header.crit : [];
  if (!CRIT.every((name) => crit.includes(name)))
    throw new ObError(400, ErrorCode.SignatureInvalidClaim, `crit must list ${CRIT.join(', ')}`);
  const iat = header[OB_IAT];
  if (typeof iat !== 'number' || !Number.isFinite(iat) || iat > Date.now() / 1000 + SKEW_SECONDS)
    throw new ObError(400, ErrorCode.SignatureInvalidClaim, `${OB_IAT} must be a time in the past`);
  if (header[OB_ISS] !== expectedIssuer)
    throw new ObError(400, ErrorCode.SignatureInvalidClaim, `${OB_ISS} must be the client id`);
  if (typeof header[OB_TAN] !== 'string' || !header[OB_TAN])
    throw new ObError(400, ErrorCode.SignatureInvalidClaim, `${OB_TAN} must name a trust anchor`);
  const jwk = keys.find((key) => key.kid === header.kid);
  if (!jwk) throw new ObError(400, ErrorCode.SignatureInvalid, "the JWS kid is not one of the client's keys");
  const payload = Buffer.from(body, 'utf8').toString('base64url');
  try {
    await compactVerify(`${parts[0]}.${payload}.${parts[2]}`, await importKey(jwk), {
      algorithms: ['PS256'],
      crit: CRIT_OPTION,
    });
  } catch {
    throw new ObError(400, ErrorCode.SignatureInvalid, 'the JWS signature does not verify over the body');
  }
}
