import { randomUUID } from 'node:crypto';
import {
  CompactSign,
  compactVerify,
  createLocalJWKSet,
  importJWK,
  type JWK,
  type JWTHeaderParameters,
} from 'jose';
import * as client from 'openid-client';
import { Agent, fetch as undiciFetch } from 'undici';
import type { ClientConfig } from '../app.ts';

/**
 * A provider's side of the bank, as the service's `obie` adapter will do it, with openid-client
 * and jose only: discovery, client credentials, PAR + signed request object + PKCE + JARM, code
 * exchange, and signed PISP calls over mutual TLS, every answer's signature verified. Used by
 * the walkthrough (`npm run -w @pis/sandbox-bank walkthrough`) and, wrapped with the official
 * schema checks, by the tests. Never by the bank itself.
 */
export const CRIT = [
  'http://openbanking.org.uk/iat',
  'http://openbanking.org.uk/iss',
  'http://openbanking.org.uk/tan',
];

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked against the official schema, then read freely.
  body: Record<string, any>;
}

export type ObClient = Awaited<ReturnType<typeof connect>>;

export async function connect(
  clientConfig: ClientConfig,
  options: { transport?: { certificatePem: string; privateKeyPem: string } } = {},
) {
  const transport = options.transport ?? clientConfig.transport;
  const agent = new Agent({
    connect: {
      ca: clientConfig.transport.caCertificatePem,
      cert: transport.certificatePem,
      key: transport.privateKeyPem,
    },
  });
  const mtlsFetch = ((url: string, init: object) =>
    undiciFetch(url, { ...init, dispatcher: agent })) as never;
  const privateJwk = clientConfig.signingKey.privateJwk as JWK;
  const signingKey = (await importJWK(privateJwk, 'PS256')) as CryptoKey;
  const kid = clientConfig.signingKey.kid;
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
  // The bank's customer pages are plain http on loopback (no certificate warning in a browser);
  // openid-client refuses an http authorization endpoint unless told. Every request the client
  // itself sends still goes to the https (mTLS) issuer.
  if (new URL(config.serverMetadata().authorization_endpoint ?? '').protocol === 'http:')
    client.allowInsecureRequests(config);
  client.useJwtResponseMode(config);
  const bankKeys = createLocalJWKSet(clientConfig.bankSigningKeys as { keys: JWK[] });

  async function signBody(
    body: string,
    overrides: Record<string, unknown> = {},
    key: CryptoKey = signingKey,
  ) {
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
        ...overrides,
      } as JWTHeaderParameters)
      .sign(key, { crit: Object.fromEntries(CRIT.map((name) => [name, true])) });
    const [header, , signature] = jws.split('.');
    return `${header}..${signature}`;
  }

  /** Throws unless the answer carries the bank's detached signature over exactly this body. */
  async function verifyAnswer(text: string, signature: string | null) {
    const [header, middle, sig] = (signature ?? '').split('.');
    if (!header || middle !== '' || !sig)
      throw new Error('the bank did not sign its answer (x-jws-signature)');
    const { protectedHeader } = await compactVerify(
      `${header}.${Buffer.from(text).toString('base64url')}.${sig}`,
      bankKeys,
      { algorithms: ['PS256'], crit: Object.fromEntries(CRIT.map((name) => [name, true])) },
    );
    if (!CRIT.every((name) => protectedHeader.crit?.includes(name)))
      throw new Error('the answer lacks the OB crit claims');
  }

  /** A PISP call, signed when it is a POST; the answer's signature is verified. */
  async function api(
    method: 'GET' | 'POST',
    path: string,
    options: {
      token: string;
      body?: unknown;
      rawBody?: string;
      idempotencyKey?: string;
      signature?: string | null;
      headers?: Record<string, string>;
    },
  ): Promise<ApiAnswer> {
    const raw = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token}`,
      accept: 'application/json',
      'x-fapi-interaction-id': randomUUID(),
      'x-fapi-financial-id': 'sandbox-bank',
    };
    if (raw !== undefined) headers['content-type'] = 'application/json; charset=utf-8';
    if (method === 'POST') {
      headers['x-idempotency-key'] = options.idempotencyKey ?? randomUUID();
      const signature = options.signature === undefined ? await signBody(raw ?? '') : options.signature;
      if (signature !== null) headers['x-jws-signature'] = signature;
    }
    Object.assign(headers, options.headers);
    const response = await undiciFetch(`${clientConfig.apiBase}${path}`, {
      method,
      headers,
      body: raw,
      dispatcher: agent,
    });
    const text = await response.text();
    const answer: ApiAnswer = {
      status: response.status,
      headers: response.headers as unknown as Headers,
      text,
      body: text ? JSON.parse(text) : {},
    };
    await verifyAnswer(text, response.headers.get('x-jws-signature'));
    if (!response.headers.get('x-fapi-interaction-id'))
      throw new Error('the answer lacks x-fapi-interaction-id');
    return answer;
  }

  /** PAR with a signed request object (PS256), PKCE S256, JARM, the consent as essential claim. */
  async function authorizationUrl(consentId: string, overrides: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const parameters: Record<string, string> = {
      redirect_uri: clientConfig.redirectUris[0]!,
      scope: 'openid payments',
      response_type: 'code',
      response_mode: 'jwt',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
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
      ...overrides,
    };
    const jar = await client.buildAuthorizationUrlWithJAR(config, parameters, { key: signingKey, kid });
    const url = await client.buildAuthorizationUrlWithPAR(config, jar.searchParams);
    return { url, verifier, state, nonce };
  }

  async function exchange(callbackUrl: string, checks: { verifier: string; state: string; nonce: string }) {
    return client.authorizationCodeGrant(config, new URL(callbackUrl), {
      pkceCodeVerifier: checks.verifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
  }

  return {
    config,
    agent,
    signingKey,
    signBody,
    api,
    authorizationUrl,
    exchange,
    clientCredentials: async () =>
      (await client.clientCredentialsGrant(config, { scope: 'payments' })).access_token,
    close: () => agent.close(),
  };
}

/** A domestic payment consent request as a merchant's provider would send it. */
export function consentRequest(amount = '12.50', reference = 'ORDER-1001') {
  return {
    Data: {
      Initiation: {
        InstructionIdentification: `INSTR-${reference}`.slice(0, 35),
        EndToEndIdentification: reference,
        LocalInstrument: 'UK.OBIE.FPS',
        InstructedAmount: { Amount: amount, Currency: 'GBP' },
        CreditorAccount: {
          SchemeName: 'UK.OBIE.SortCodeAccountNumber',
          Identification: '08080021325698',
          Name: 'Acme Coffee Ltd',
        },
        RemittanceInformation: { Unstructured: [`Order ${reference}`] },
      },
    },
    Risk: { PaymentContextCode: 'EcommerceMerchantInitiatedPayment', MerchantCategoryCode: '5814' },
  };
}

export function paymentRequest(consentId: string, consent: ReturnType<typeof consentRequest>) {
  return { Data: { ConsentId: consentId, Initiation: consent.Data.Initiation }, Risk: consent.Risk };
}
