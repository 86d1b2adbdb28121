import { randomUUID } from 'node:crypto';
import {
  CompactSign,
  compactVerify,
  createLocalJWKSet,
  importJWK,
  type JWK,
  type JWTHeaderParameters,
  jwtVerify,
} from 'jose';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import type { ObieClient } from '../../config.ts';
import { ProviderOutcomeUnknownError } from '../payment-provider.ts';

/**
 * One ASPSP connection (UK Open Banking Read/Write v4.0, FAPI 1 Advanced) on openid-client and
 * jose: mutual TLS through an undici Agent, private_key_jwt client authentication, PAR with a
 * signed request object + PKCE + JARM, and the PISP API's detached JWS (x-jws-signature) both
 * ways. No OAuth or JOSE is written by hand here; this module only puts the pieces together
 * (the sandbox bank's walkthrough client, sandbox-bank/src/walkthrough/ob-client.ts, is the
 * reference).
 */

const CRIT = [
  'http://openbanking.org.uk/iat',
  'http://openbanking.org.uk/iss',
  'http://openbanking.org.uk/tan',
];
const CRIT_ALLOWED = Object.fromEntries(CRIT.map((name) => [name, true]));
/** A bank answer slower than this is a timeout: for a POST the outcome is unknown. */
const BANK_TIMEOUT_MS = 10_000;

/** A bank answer that is not a success: its status and OB error code, for logs and sync. */
export class BankApiError extends Error {
  override name = 'BankApiError';
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, code: string | undefined, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export interface ApiAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: OB bodies are read field by field and checked where used.
  body: Record<string, any>;
}

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export type ObieConnection = Awaited<ReturnType<typeof connectObie>>;

/** How old a bank's event notification may be (its `iat`); a `jti` is remembered this long. */
export const NOTIFICATION_MAX_AGE_SECONDS = 10 * 60;

export async function connectObie(clientConfig: ObieClient) {
  const agent = new Agent({
    connect: {
      ca: clientConfig.transport.caCertificatePem,
      cert: clientConfig.transport.certificatePem,
      key: clientConfig.transport.privateKeyPem,
    },
  });
  const mtlsFetch = ((url: string, init: object) =>
    undiciFetch(url, { ...init, dispatcher: agent, signal: AbortSignal.timeout(BANK_TIMEOUT_MS) })) as never;
  const kid = clientConfig.signingKey.kid;
  const signingKey = (await importJWK(clientConfig.signingKey.privateJwk as JWK, 'PS256')) as CryptoKey;
  const config = await client.discovery(
    new URL(clientConfig.issuer),
    clientConfig.clientId,
    {
      authorization_signed_response_alg: 'PS256',
      id_token_signed_response_alg: 'PS256',
      tls_client_certificate_bound_access_tokens: true,
    },
    client.PrivateKeyJwt({ key: signingKey, kid }),
    { [client.customFetch]: mtlsFetch },
  );
  config[client.customFetch] = mtlsFetch;
  // A bank's customer pages on plain http (only the sandbox bank, on loopback): openid-client
  // refuses such an authorization endpoint unless told. Our own requests stay on https + mTLS.
  if (new URL(config.serverMetadata().authorization_endpoint ?? 'https://x').protocol === 'http:')
    client.allowInsecureRequests(config);
  client.useJwtResponseMode(config);
  const bankKeys = createLocalJWKSet(clientConfig.bankSigningKeys as { keys: JWK[] });
  const redirectUri = clientConfig.redirectUris[0] as string;

  async function signBody(body: string): Promise<string> {
    const jws = await new CompactSign(new TextEncoder().encode(body))
      .setProtectedHeader({
        alg: 'PS256',
        kid,
        typ: 'JOSE',
        cty: 'application/json',
        crit: CRIT,
        'http://openbanking.org.uk/iat': Math.floor(Date.now() / 1000) - 1,
        'http://openbanking.org.uk/iss': clientConfig.clientId,
        'http://openbanking.org.uk/tan': 'openbanking.org.uk',
      } as JWTHeaderParameters)
      .sign(signingKey, { crit: CRIT_ALLOWED });
    const [header, , signature] = jws.split('.');
    return `${header}..${signature}`;
  }

  /** Throws unless the answer carries the bank's detached signature over exactly this body. */
  async function verifyAnswer(text: string, signature: string | null): Promise<void> {
    const [header, middle, sig] = (signature ?? '').split('.');
    if (!header || middle !== '' || !sig)
      throw new Error('the bank did not sign its answer (x-jws-signature)');
    const { protectedHeader } = await compactVerify(
      `${header}.${Buffer.from(text).toString('base64url')}.${sig}`,
      bankKeys,
      { algorithms: ['PS256'], crit: CRIT_ALLOWED },
    );
    if (!CRIT.every((name) => protectedHeader.crit?.includes(name)))
      throw new Error('the bank signed its answer without the OB crit claims');
  }

  /**
   * A PISP call, signed and idempotent when a POST; the answer must be signed by the bank. A
   * POST whose answer never came (timeout, connection lost) is ProviderOutcomeUnknownError.
   */
  async function api(
    method: 'GET' | 'POST',
    path: string,
    options: { token: string; body?: unknown; idempotencyKey?: string; customerAddress?: string | undefined },
  ): Promise<ApiAnswer> {
    const raw = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      accept: 'application/json',
      'x-fapi-interaction-id': randomUUID(),
    };
    if (raw !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    // The customer is at our page or just back from the bank's (FAPI: only while they are present).
    if (options.customerAddress) headers['x-fapi-customer-ip-address'] = options.customerAddress;
    if (method === 'POST') {
      headers['x-idempotency-key'] = options.idempotencyKey ?? randomUUID();
      headers['x-jws-signature'] = await signBody(raw ?? '');
    }
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    let text: string;
    try {
      response = await undiciFetch(`${clientConfig.apiBase}${path}`, {
        method,
        headers,
        body: raw,
        dispatcher: agent,
        signal: AbortSignal.timeout(BANK_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      if (method === 'POST')
        throw new ProviderOutcomeUnknownError(`bank ${method} ${path}: ${String(error)}`);
      throw error;
    }
    await verifyAnswer(text, response.headers.get('x-jws-signature'));
    // biome-ignore lint/suspicious/noExplicitAny: see ApiAnswer.
    let body: Record<string, any>;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      throw new BankApiError(response.status, undefined, `the bank answered ${response.status} with no JSON`);
    }
    if (response.status >= 400) {
      throw new BankApiError(
        response.status,
        body.Code ?? body.Errors?.[0]?.ErrorCode,
        `the bank answered ${response.status} ${body.Errors?.[0]?.ErrorCode ?? body.Code ?? ''}`.trim(),
      );
    }
    return { status: response.status, body };
  }

  /** PAR with a signed request object (PS256), PKCE S256 and JARM; the consent as essential claim. */
  async function authorizationRequest(consentId: string): Promise<AuthorizationRequest> {
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: 'openid payments',
      response_type: 'code',
      response_mode: 'jwt',
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
      claims: JSON.stringify({
        id_token: {
          openbanking_intent_id: { value: consentId, essential: true },
          acr: { essential: true, values: ['urn:openbanking:psd2:sca'] },
        },
        userinfo: { openbanking_intent_id: { value: consentId, essential: true } },
      }),
    };
    const jar = await client.buildAuthorizationUrlWithJAR(config, parameters, { key: signingKey, kid });
    const url = await client.buildAuthorizationUrlWithPAR(config, jar.searchParams);
    return { url, state, nonce, codeVerifier };
  }

  /**
   * The client-credentials token, reused while it has over a minute to live (issue 31 item 7: a
   * read or a start asked the bank for a new token every time). Callers at the same moment share
   * one request for it; a failed one is not kept.
   */
  type HeldToken = { value: string; until: number };
  let current: Promise<HeldToken> | undefined;
  const askForToken = () => {
    const asked = Date.now();
    const asking = client.clientCredentialsGrant(config, { scope: 'payments' }).then((answer) => ({
      value: answer.access_token,
      until: asked + Math.max(0, answer.expires_in ?? 0) * 1000,
    }));
    asking.catch(() => {
      if (current === asking) current = undefined;
    });
    return asking;
  };
  const clientCredentials = async (): Promise<string> => {
    const seen = current;
    const held = seen && (await seen.catch(() => undefined));
    if (held && held.until > Date.now() + 60_000) return held.value;
    if (current === seen) current = askForToken();
    return (await (current as Promise<HeldToken>)).value;
  };

  return {
    clientId: clientConfig.clientId,
    issuer: clientConfig.issuer,
    api,
    authorizationRequest,
    clientCredentials,
    /**
     * The customer is back: openid-client verifies the JARM response (signature, issuer,
     * audience, expiry, state), then exchanges the code with the PKCE verifier and checks the
     * ID token (nonce). An error response (the customer refused) is an AuthorizationResponseError.
     */
    exchange: (callbackUrl: URL, checks: { state: string; nonce: string; codeVerifier: string }) =>
      client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      }),
    /**
     * An event notification (a SET signed by the bank, for us): its claims, or a throw. Its
     * header's `typ` is the OB event notification's `JWT`, and it carries a `jti` and an `iat`
     * no older than NOTIFICATION_MAX_AGE (the caller takes each `jti` once).
     */
    verifyNotification: async (jwt: string) =>
      (
        await jwtVerify(jwt, bankKeys, {
          issuer: clientConfig.issuer,
          audience: clientConfig.clientId,
          algorithms: ['PS256'],
          typ: 'JWT',
          maxTokenAge: NOTIFICATION_MAX_AGE_SECONDS,
          clockTolerance: 30,
          requiredClaims: ['jti', 'iat'],
        })
      ).payload,
    close: () => agent.close(),
  };
}
