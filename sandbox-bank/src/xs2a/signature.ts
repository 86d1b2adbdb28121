import { createHash } from 'node:crypto';

/**
 * HTTP message signing as the Berlin Group's Implementation Guidelines ask (section 12, after
 * draft-cavage-http-signatures-10): `Digest: SHA-256=<base64 of the body's hash>`, and
 * `Signature: keyId="SN=<serial hex>,CA=<issuer DN>",algorithm="rsa-sha256",headers="...",signature="..."`
 * over the signing string: one `name: value` line per listed header (lowercase names), with
 * `(request-target)` as `<method> <path?query>`. Shared by the bank (to verify) and the client
 * helper (to sign), so both build the same string.
 */
export const SIGNED_HEADERS_REQUIRED = ['digest', 'x-request-id'] as const;
/** Signed when the request carries them. */
export const SIGNED_HEADERS_CONDITIONAL = ['psu-id', 'psu-corporate-id', 'tpp-redirect-uri', 'date'] as const;

export function digestOf(body: string | Buffer, algorithm: 'SHA-256' | 'SHA-512' = 'SHA-256'): string {
  const hash = createHash(algorithm === 'SHA-256' ? 'sha256' : 'sha512')
    .update(body)
    .digest('base64');
  return `${algorithm}=${hash}`;
}

export function signingString(
  names: string[],
  request: { method: string; target: string; header: (name: string) => string | undefined },
): string | undefined {
  const lines: string[] = [];
  for (const name of names) {
    if (name === '(request-target)') {
      lines.push(`(request-target): ${request.method.toLowerCase()} ${request.target}`);
      continue;
    }
    const value = request.header(name);
    if (value === undefined) return undefined;
    lines.push(`${name}: ${value}`);
  }
  return lines.join('\n');
}

export interface SignatureParams {
  keyId: string;
  algorithm: string | undefined;
  headers: string[];
  signature: string;
}

/** `a="b",c="d"` (spaces after commas tolerated); undefined when malformed. */
export function parseSignature(header: string): SignatureParams | undefined {
  const params = new Map<string, string>();
  const pattern = /\s*([a-zA-Z]+)="([^"]*)"\s*(,|$)/y;
  let index = 0;
  while (index < header.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(header);
    if (!match?.[1] || match[2] === undefined) return undefined;
    params.set(match[1], match[2]);
    index = pattern.lastIndex;
  }
  const keyId = params.get('keyId');
  const signature = params.get('signature');
  const headers = params.get('headers');
  if (!keyId || !signature || !headers) return undefined;
  return {
    keyId,
    algorithm: params.get('algorithm'),
    headers: headers.toLowerCase().split(/\s+/).filter(Boolean),
    signature,
  };
}

/** `SN=<hex>,CA=<issuer DN>`: the serial and the issuer (everything after `CA=`). */
export function parseKeyId(keyId: string): { serial: string; issuer: string } | undefined {
  const match = /^SN=([0-9A-Fa-f]+),\s*CA=(.+)$/.exec(keyId);
  if (!match?.[1] || !match[2]) return undefined;
  return { serial: match[1].replace(/^0+/, '').toUpperCase(), issuer: match[2] };
}
