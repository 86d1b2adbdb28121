import { createHash, type X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import escapeHtml from 'escape-html';
import Provider, { type Configuration, interactionPolicy, type KoaContextWithOIDC } from 'oidc-provider';
import type pg from 'pg';
import { consentIdForGrant } from '../bank/consents.ts';
import type { BankConfig } from '../config.ts';
import { type KeyMaterial, publicJwk } from '../keys.ts';
import { postgresAdapter } from './adapter.ts';

/**
 * The authorization server: oidc-provider configured (not written) for FAPI 1.0 Final as Open
 * Banking UK uses it. The issuer is the mTLS host; only the authorization endpoint lives on
 * the customer's plain-http host (see app.ts and docs/decisions/030-sandbox-bank.md).
 */

export const ACR_SCA = 'urn:openbanking:psd2:sca';
export const ACR_CA = 'urn:openbanking:psd2:ca';
export const INTENT_CLAIM = 'openbanking_intent_id';

/** Seconds. Set for every artefact: oidc-provider's defaults are for development. */
export const TTL = {
  AccessToken: 10 * 60,
  AuthorizationCode: 60,
  BackchannelAuthenticationRequest: 10 * 60,
  ClientCredentials: 10 * 60,
  DeviceCode: 10 * 60,
  Grant: 60 * 60,
  IdToken: 10 * 60,
  Interaction: 30 * 60,
  PushedAuthorizationRequest: 60,
  RefreshToken: 24 * 60 * 60,
  Session: 30 * 60,
} as const;

export interface ProviderOptions {
  config: BankConfig;
  keys: KeyMaterial;
  pool: pg.Pool;
  issuer: string;
  /** The customer host's authorization endpoint, advertised in discovery. */
  authorizationEndpoint: string;
  cookieKeys: string[];
}

export function peerCertificate(ctx: { socket: unknown }): X509Certificate | undefined {
  const socket = ctx.socket as Partial<TLSSocket>;
  if (!socket.encrypted || !socket.authorized || !socket.getPeerX509Certificate) return undefined;
  return socket.getPeerX509Certificate();
}

export function certificateThumbprint(cert: X509Certificate): string {
  return createHash('sha256').update(cert.raw).digest('base64url');
}

export function createProvider(options: ProviderOptions): Provider {
  const { config, keys, pool } = options;
  const configuration: Configuration = {
    adapter: postgresAdapter(pool),
    clients: [
      {
        client_id: config.clientId,
        client_name: 'Payment Initiation Service (obie)',
        redirect_uris: config.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code', 'client_credentials'],
        scope: 'openid payments',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'PS256',
        request_object_signing_alg: 'PS256',
        id_token_signed_response_alg: 'PS256',
        authorization_signed_response_alg: 'PS256',
        tls_client_certificate_bound_access_tokens: true,
        require_pushed_authorization_requests: true,
        tls_client_auth_subject_dn: 'CN=pis-obie,O=Payment Initiation Service',
        jwks: { keys: [publicJwk(keys.client.signingKey)] },
      },
    ],
    jwks: { keys: [keys.bankSigningKey] },
    cookies: { keys: options.cookieKeys },
    scopes: ['openid', 'payments'],
    claims: { acr: null, auth_time: null, openid: ['sub'], [INTENT_CLAIM]: null },
    acrValues: [ACR_SCA, ACR_CA],
    clientAuthMethods: ['private_key_jwt', 'tls_client_auth'],
    enabledJWA: {
      clientAuthSigningAlgValues: ['PS256'],
      requestObjectSigningAlgValues: ['PS256'],
      idTokenSigningAlgValues: ['PS256'],
      authorizationSigningAlgValues: ['PS256'],
      userinfoSigningAlgValues: ['PS256'],
      introspectionSigningAlgValues: ['PS256'],
    },
    pkce: { required: () => true },
    responseTypes: ['code'],
    features: {
      fapi: { enabled: true, profile: '1.0 Final' },
      clientCredentials: { enabled: true },
      claimsParameter: { enabled: true },
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: true },
      requestObjects: { enabled: true, requireSignedRequestObject: true },
      jwtResponseModes: { enabled: true },
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      // On (at /me): Open Banking clients commonly repeat the intent claim under claims.userinfo.
      userinfo: { enabled: true },
      mTLS: {
        enabled: true,
        certificateBoundAccessTokens: true,
        tlsClientAuth: true,
        getCertificate: (ctx) => peerCertificate(ctx),
        certificateAuthorized: (ctx) => peerCertificate(ctx) !== undefined,
        certificateSubjectMatches: (ctx, property, expected) => {
          const cert = peerCertificate(ctx);
          if (!cert || property !== 'tls_client_auth_subject_dn') return false;
          const subject = cert.subject.split('\n').reverse().join(',');
          return normaliseDn(subject) === normaliseDn(expected);
        },
      },
    },
    ttl: { ...TTL },
    issueRefreshToken: async () => false,
    interactions: {
      url: async (_ctx, interaction) => `/interaction/${interaction.uid}`,
      policy: scaEveryTime(),
    },
    async findAccount(_ctx, sub, token) {
      const grantId = (token as { grantId?: string } | undefined)?.grantId;
      const consentId = grantId ? await consentIdForGrant(pool, grantId) : undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, ...(consentId ? { [INTENT_CLAIM]: consentId } : {}) }),
      };
    },
    /** The consent the customer approved travels with the authorization-code access token. */
    async extraTokenClaims(_ctx, token) {
      if (token.kind !== 'AccessToken') return undefined;
      const grantId = (token as { grantId?: string }).grantId;
      const consentId = grantId ? await consentIdForGrant(pool, grantId) : undefined;
      return consentId ? { [INTENT_CLAIM]: consentId } : undefined;
    },
    /** Only the grant this very interaction made: every payment is its own approval, none is remembered. */
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    async renderError(ctx: KoaContextWithOIDC, out) {
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error), String(out.error_description ?? ''));
    },
  };
  const provider = new Provider(options.issuer, configuration);

  // The browser's authorization endpoint is on the customer's host: discovery says so.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/.well-known/openid-configuration' && ctx.status === 200 && ctx.body) {
      (ctx.body as Record<string, unknown>).authorization_endpoint = options.authorizationEndpoint;
    }
  });
  return provider;
}

/**
 * Strong customer authentication for every payment: the sign-in step is asked in every
 * authorization, even when the browser still has a session at the bank from an earlier one.
 */
function scaEveryTime() {
  const policy = interactionPolicy.base();
  policy
    .get('login')
    ?.checks.add(
      new interactionPolicy.Check('sca_per_payment', 'every payment needs its own sign-in', (ctx) =>
        ctx.oidc.result?.login
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );
  return policy;
}

function normaliseDn(dn: string): string {
  return dn
    .split(',')
    .map((part) => part.trim())
    .join(',');
}

function errorPage(error: string, description: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sandbox Bank: error</title></head><body><main><h1>Something went wrong</h1><p>${escapeHtml(error)}</p><p>${escapeHtml(description)}</p></main></body></html>`;
}
