import { createVerify, X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { authorisationNumberOf } from './certificates.ts';
import { formatError, Xs2aCode, Xs2aError } from './errors.ts';
import {
  digestOf,
  parseKeyId,
  parseSignature,
  SIGNED_HEADERS_CONDITIONAL,
  SIGNED_HEADERS_REQUIRED,
  signingString,
} from './signature.ts';

/**
 * Who calls, and whether they signed: every request to Sandbox Bank EU passes these checks in
 * this order, each refused with the standard's code.
 * 1. The TLS client certificate (QWAC): present (else 401 CERTIFICATE_MISSING), issued by the
 *    bank's TPP CA, in its validity period, carrying an authorisation number in
 *    organizationIdentifier (else 401 CERTIFICATE_INVALID / CERTIFICATE_EXPIRED).
 * 2. `X-Request-ID`: a UUID (else 400 FORMAT_ERROR).
 * 3. `Signature` present (else 401 SIGNATURE_MISSING); `TPP-Signature-Certificate` present
 *    (else 401 CERTIFICATE_MISSING), base64 DER of a certificate like (1) and of the same TPP
 *    (else 401 CERTIFICATE_INVALID).
 * 4. `Digest` present and well formed (else 400 FORMAT_ERROR) and equal to the body's (else 401
 *    SIGNATURE_INVALID).
 * 5. The signature: keyId naming that certificate, rsa-sha256, over at least `digest` and
 *    `x-request-id` (and `psu-id`, `psu-corporate-id`, `tpp-redirect-uri`, `date` when sent),
 *    verifying with the certificate's key (else 401 SIGNATURE_INVALID).
 */
export interface Tpp {
  authorisationNumber: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requestId(request: FastifyRequest): string | undefined {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && UUID.test(header) ? header : undefined;
}

/** Step 1, before anything else is read (the body included). */
export function identifyConnection(request: FastifyRequest, ca: X509Certificate, now = new Date()): Tpp {
  const socket = request.raw.socket as Partial<TLSSocket>;
  const peer = socket.getPeerX509Certificate?.();
  if (!peer)
    throw new Xs2aError(401, Xs2aCode.CertificateMissing, 'a TLS client certificate (QWAC) is required');
  return { authorisationNumber: checkCertificate(peer, ca, now, 'the TLS client certificate') };
}

/** Steps 2 to 5, once the body is read. */
export function verifyRequest(request: FastifyRequest, ca: X509Certificate, tpp: Tpp, now = new Date()): Tpp {
  const { authorisationNumber } = tpp;
  if (!requestId(request)) throw formatError('X-Request-ID must be a UUID', 'X-Request-ID');

  const signatureHeader = header(request, 'signature');
  if (signatureHeader === undefined)
    throw new Xs2aError(401, Xs2aCode.SignatureMissing, 'this bank requires signed requests (Signature)');
  const certificateHeader = header(request, 'tpp-signature-certificate');
  if (certificateHeader === undefined)
    throw new Xs2aError(
      401,
      Xs2aCode.CertificateMissing,
      'TPP-Signature-Certificate is required with a Signature',
    );
  let signer: X509Certificate;
  try {
    signer = new X509Certificate(
      Buffer.from(certificateHeader.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64'),
    );
  } catch {
    throw new Xs2aError(
      401,
      Xs2aCode.CertificateInvalid,
      'TPP-Signature-Certificate is not a base64 DER certificate',
    );
  }
  if (checkCertificate(signer, ca, now, 'TPP-Signature-Certificate') !== authorisationNumber)
    throw new Xs2aError(
      401,
      Xs2aCode.CertificateInvalid,
      'TPP-Signature-Certificate belongs to another TPP than the TLS certificate',
    );

  const digest = header(request, 'digest');
  const algorithm = digest ? /^(SHA-256|SHA-512)=[A-Za-z0-9+/]+={0,2}$/.exec(digest)?.[1] : undefined;
  if (!digest || !algorithm)
    throw formatError('Digest must be SHA-256=<base64> (or SHA-512) of the body', 'Digest');
  if (digestOf(request.rawBody ?? '', algorithm as 'SHA-256' | 'SHA-512') !== digest)
    throw new Xs2aError(401, Xs2aCode.SignatureInvalid, 'Digest does not match the body');

  const params = parseSignature(signatureHeader);
  if (!params) throw new Xs2aError(401, Xs2aCode.SignatureInvalid, 'Signature is malformed');
  const keyId = parseKeyId(params.keyId);
  if (!keyId || keyId.serial !== signer.serialNumber.replace(/^0+/, '').toUpperCase())
    throw new Xs2aError(
      401,
      Xs2aCode.SignatureInvalid,
      'the keyId does not name TPP-Signature-Certificate (SN=<serial hex>,CA=<issuer>)',
    );
  if (params.algorithm !== undefined && !['rsa-sha256', 'SHA-256withRSA'].includes(params.algorithm))
    throw new Xs2aError(401, Xs2aCode.SignatureInvalid, 'the algorithm must be rsa-sha256');
  const mustSign = [
    ...SIGNED_HEADERS_REQUIRED,
    ...SIGNED_HEADERS_CONDITIONAL.filter((name) => header(request, name) !== undefined),
  ];
  const unsigned = mustSign.filter((name) => !params.headers.includes(name));
  if (unsigned.length > 0)
    throw new Xs2aError(401, Xs2aCode.SignatureInvalid, `the signature must cover ${unsigned.join(', ')}`);
  const text = signingString(params.headers, {
    method: request.method,
    target: request.url,
    header: (name) => header(request, name),
  });
  let valid = false;
  try {
    valid =
      text !== undefined &&
      createVerify('RSA-SHA256').update(text).verify(signer.publicKey, params.signature, 'base64');
  } catch {}
  if (!valid) throw new Xs2aError(401, Xs2aCode.SignatureInvalid, 'the signature does not verify');
  return { authorisationNumber };
}

function checkCertificate(cert: X509Certificate, ca: X509Certificate, now: Date, what: string): string {
  if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey))
    throw new Xs2aError(401, Xs2aCode.CertificateInvalid, `${what} is not issued by this bank's TPP CA`);
  if (now < new Date(cert.validFrom) || now > new Date(cert.validTo))
    throw new Xs2aError(401, Xs2aCode.CertificateExpired, `${what} is not valid now`);
  const number = authorisationNumberOf(cert);
  if (!number)
    throw new Xs2aError(
      401,
      Xs2aCode.CertificateInvalid,
      `${what} carries no authorisation number (organizationIdentifier)`,
    );
  return number;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}
