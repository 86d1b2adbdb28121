import { createHash, createSign, randomUUID, X509Certificate } from 'node:crypto';
import { Agent, fetch as undiciFetch } from 'undici';
import { z } from 'zod';
import { ProviderOutcomeUnknownError } from '../payment-provider.ts';
import type { Xs2aClient } from './nextgenpsd2-client.ts';

/**
 * One ASPSP connection speaking Berlin Group NextGenPSD2 1.3.11 (XS2A): mutual TLS with the TPP's
 * certificate through an undici Agent, and every request signed as the Implementation Guidelines
 * ask (`Digest`, `X-Request-ID`, `Date`, draft-cavage `Signature` rsa-sha256 with
 * `keyId="SN=<serial>,CA=<issuer DN>"`, `TPP-Signature-Certificate`). Answers are the bank's
 * word, so untrusted: bounded in size, parsed with the caller's zod schema of the fields it reads,
 * and errors carry the bank's `tppMessages` codes.
 */

/** A bank answer slower than this is a timeout: for a POST or DELETE the outcome is unknown. */
const BANK_TIMEOUT_MS = 10_000;
/** Largest answer read; anything longer is not an answer of this API. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Failures where the request certainly never reached the bank (no connection was made). */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const TppMessage = z.object({
  category: z.string().max(50).optional(),
  code: z.string().max(100),
  path: z.string().max(500).optional(),
  text: z.string().max(2_000).optional(),
});
const ErrorBody = z.object({ tppMessages: z.array(TppMessage).max(50) });
export type TppMessage = z.infer<typeof TppMessage>;

/** The bank answered with an error status: its status and `tppMessages` (codes first). */
export class Xs2aApiError extends Error {
  override name = 'Xs2aApiError';
  readonly status: number;
  readonly tppMessages: readonly TppMessage[];
  constructor(status: number, tppMessages: readonly TppMessage[], what: string) {
    const said = tppMessages.map((message) => `${message.code}${message.text ? `: ${message.text}` : ''}`);
    super(
      `${what}: the bank answered ${status}${said.length > 0 ? ` (${said.join('; ')})` : ''}`.slice(0, 1_000),
    );
    this.status = status;
    this.tppMessages = tppMessages;
  }
  /** Whether the bank named this `tppMessages` code. */
  has(code: string): boolean {
    return this.tppMessages.some((message) => message.code === code);
  }
}

/** The bank answered success with a body this provider cannot use (not JSON, not the schema, an unknown status). */
export class Xs2aBadAnswerError extends Error {
  override name = 'Xs2aBadAnswerError';
}

export interface Xs2aRequest<T> {
  body?: unknown;
  /** Extra headers (lower-case names); `tpp-redirect-uri`, `psu-id`, `psu-corporate-id` are signed when sent. */
  headers?: Record<string, string>;
  /** The success body's schema; absent for answers without a body (204). */
  answer?: z.ZodType<T>;
}

export interface Xs2aAnswer<T> {
  status: number;
  body: T;
}

export type Xs2aConnection = ReturnType<typeof connectXs2a>;

/** The headers the signature covers, in order, when the request carries them. */
const SIGNED_WHEN_SENT = ['psu-id', 'psu-corporate-id', 'tpp-redirect-uri', 'date'];

export function connectXs2a(client: Xs2aClient, options: { timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? BANK_TIMEOUT_MS;
  const agent = new Agent({
    connect: {
      ca: client.transport.caCertificatePem,
      cert: client.transport.certificatePem,
      key: client.transport.privateKeyPem,
    },
  });
  const certificate = new X509Certificate(client.transport.certificatePem);
  const keyId = `SN=${certificate.serialNumber},CA=${certificate.issuer.split('\n').join(',')}`;
  const certificateHeader = certificate.raw.toString('base64');

  function signedHeaders(method: string, url: URL, body: string, extra: Record<string, string>) {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...extra,
      'x-request-id': randomUUID(),
      date: new Date().toUTCString(),
      digest: `SHA-256=${createHash('sha256').update(body).digest('base64')}`,
      'tpp-signature-certificate': certificateHeader,
    };
    const names = [
      'digest',
      'x-request-id',
      ...SIGNED_WHEN_SENT.filter((name) => headers[name] !== undefined),
      '(request-target)',
    ];
    const text = names
      .map((name) =>
        name === '(request-target)'
          ? `(request-target): ${method.toLowerCase()} ${url.pathname}${url.search}`
          : `${name}: ${headers[name]}`,
      )
      .join('\n');
    const signature = createSign('RSA-SHA256').update(text).sign(client.transport.privateKeyPem, 'base64');
    headers.signature = `keyId="${keyId}",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`;
    return headers;
  }

  /**
   * One signed call. `path` is the document's (`/v1/payments/...`). Throws Xs2aApiError for an
   * error status, Xs2aBadAnswerError for a success body that fails `answer`, and
   * ProviderOutcomeUnknownError when a POST or DELETE may have reached the bank but its answer
   * did not come back (a timeout, a connection lost, a gateway's 5xx).
   */
  async function call<T = undefined>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    request: Xs2aRequest<T> = {},
  ): Promise<Xs2aAnswer<T>> {
    const url = new URL(`${client.baseUrl}${path}`);
    const body = request.body === undefined ? '' : JSON.stringify(request.body);
    const headers = signedHeaders(method, url, body, request.headers ?? {});
    const acts = method !== 'GET';
    const what = `${method} ${url.pathname}`;
    let status: number;
    let text: string;
    try {
      const response = await undiciFetch(url, {
        method,
        headers,
        body: body || undefined,
        dispatcher: agent,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = response.status;
      text = await boundedText(response);
    } catch (error) {
      const code = (error as { cause?: { code?: string } }).cause?.code;
      if (acts && !(code && NOT_SENT.has(code)))
        throw new ProviderOutcomeUnknownError(`bank ${what}: ${String(error)}`);
      throw new Error(`bank ${what} failed: ${String(error)}`, { cause: error });
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
      if (status < 300) throw new Xs2aBadAnswerError(`${what}: the bank answered ${status} with no JSON`);
    }
    if (status >= 300) {
      // 503 and 429 are the bank's refusals before acting; another 5xx to a POST or DELETE (a
      // gateway's 502/504, an internal error) may come after the bank acted.
      if (acts && status >= 500 && status !== 503)
        throw new ProviderOutcomeUnknownError(`bank ${what}: ${status}`);
      const parsed = ErrorBody.safeParse(json);
      throw new Xs2aApiError(status, parsed.success ? parsed.data.tppMessages : [], what);
    }
    if (!request.answer) return { status, body: undefined as T };
    const parsed = request.answer.safeParse(json);
    if (!parsed.success)
      throw new Xs2aBadAnswerError(
        `${what}: the bank's answer does not match the document (${parsed.error.issues
          .slice(0, 3)
          .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
          .join('; ')})`,
      );
    return { status, body: parsed.data };
  }

  return { baseUrl: client.baseUrl, call, close: () => agent.close() };
}

/** The answer's text, refused past MAX_ANSWER_BYTES (a bank's answer is small; a flood is not one). */
async function boundedText(response: Awaited<ReturnType<typeof undiciFetch>>): Promise<string> {
  if (!response.body) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await response.body.cancel().catch(() => {});
      throw new Error(`the bank's answer is over ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
