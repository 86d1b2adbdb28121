import { createSign, randomUUID, X509Certificate } from 'node:crypto';
import { Agent, fetch } from 'undici';
import { digestOf, SIGNED_HEADERS_CONDITIONAL, signingString } from '../xs2a/signature.ts';

/**
 * A TPP's client of Sandbox Bank EU, as small as it can be: mutual TLS with the TPP's
 * certificate, and every request signed (Digest, Signature, TPP-Signature-Certificate). The tests
 * use it; a provider is written against the README, not this file (the service never imports
 * the bank's code), but may read it as a worked example.
 */
export interface Xs2aClientConfig {
  /** `https://127.0.0.1:3301/xs2a` */
  baseUrl: string;
  certificatePem: string;
  privateKeyPem: string;
  caCertificatePem: string;
}

export interface Xs2aAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read bodies they check against the schema.
  body: any;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as is, instead of the JSON of `body`. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Leave these out, or change what is signed (the refusal tests). */
  omit?: ('signature' | 'digest' | 'certificate' | 'x-request-id')[];
  signedHeaders?: string[];
  tamper?: (headers: Record<string, string>) => void;
}

export function xs2aClient(config: Xs2aClientConfig, agent = tlsAgent(config)) {
  const cert = new X509Certificate(config.certificatePem);
  const keyId = `SN=${cert.serialNumber},CA=${cert.issuer.split('\n').join(',')}`;
  const certificateHeader = cert.raw.toString('base64');

  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<Xs2aAnswer> => {
    const url = new URL(`${config.baseUrl}${path}`);
    const body = options.rawBody ?? (options.body === undefined ? '' : JSON.stringify(options.body));
    const omit = new Set(options.omit ?? []);
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(omit.has('x-request-id') ? {} : { 'x-request-id': randomUUID() }),
      ...Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
    };
    if (!omit.has('digest')) headers.digest = digestOf(body);
    if (!omit.has('certificate')) headers['tpp-signature-certificate'] = certificateHeader;
    if (!omit.has('signature')) {
      const names = options.signedHeaders ?? [
        'digest',
        'x-request-id',
        ...SIGNED_HEADERS_CONDITIONAL.filter((name) => headers[name] !== undefined),
        '(request-target)',
      ];
      const text = signingString(names, {
        method,
        target: url.pathname + url.search,
        header: (name) => headers[name],
      });
      const signature = createSign('RSA-SHA256')
        .update(text ?? '')
        .sign(config.privateKeyPem, 'base64');
      headers.signature = `keyId="${keyId}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`;
    }
    options.tamper?.(headers);
    const response = await fetch(url, { method, headers, body: body || undefined, dispatcher: agent });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers as unknown as Headers, body: parsed };
  };
  return { request, agent, close: () => agent.close() };
}

export function tlsAgent(
  config: Pick<Xs2aClientConfig, 'certificatePem' | 'privateKeyPem' | 'caCertificatePem'>,
) {
  return new Agent({
    connect: { ca: config.caCertificatePem, cert: config.certificatePem, key: config.privateKeyPem },
  });
}
