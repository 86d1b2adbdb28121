import { randomBytes, randomUUID, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyReply } from 'fastify';
import { importJWK } from 'jose';
import type Provider from 'oidc-provider';
import { ErrorCode, envelope, ObError } from './api/errors.ts';
import { signDetached } from './api/jws.ts';
import { PISP_BASE, registerPispRoutes } from './api/routes.ts';
import { seedAccounts } from './bank/accounts.ts';
import { type Engine, startEngine } from './bank/engine.ts';
import { startNotifier } from './bank/notifications.ts';
import type { BankConfig } from './config.ts';
import { type BankDatabase, openDatabase } from './db/database.ts';
import { type FaultSwitch, watchFaults } from './faults.ts';
import { type KeyMaterial, loadOrCreateKeys, publicJwk } from './keys.ts';
import type { Logger } from './logger.ts';
import { createProvider, peerCertificate } from './oidc/provider.ts';
import { html, page } from './pages/html.ts';
import { registerPages } from './pages/interactions.ts';
import { seedEuAccounts } from './xs2a/accounts.ts';
import { loadOrCreateCa } from './xs2a/certificates.ts';
import { writeXs2aClientConfig, type Xs2aClientFile } from './xs2a/client-config.ts';
import { errorBody, Xs2aCode } from './xs2a/errors.ts';
import { registerXs2aPages } from './xs2a/pages.ts';
import { createXs2aApi, XS2A_BASE } from './xs2a/routes.ts';

/**
 * The running bank: two listeners on loopback.
 * - the customer's host, plain http (`pagesUrl`): the authorization endpoint and the bank's
 *   pages, which an ordinary browser opens with no certificate warning;
 * - the provider-facing host, TLS with client certificates from the bank's CA (`issuer`):
 *   discovery, JWKS, token, PAR and the PISP API. Everything but discovery and JWKS needs a
 *   client certificate, as real banks split their browser and mTLS hosts.
 */
export interface Bank {
  pagesUrl: string;
  issuer: string;
  apiBase: string;
  config: BankConfig;
  keys: KeyMaterial;
  database: BankDatabase;
  provider: Provider;
  engine: Engine;
  faults: FaultSwitch;
  /** The ready-made client configuration for the service (also written to `client.json`). */
  clientConfig: ClientConfig;
  /** Sandbox Bank EU (Berlin Group NextGenPSD2): its API base and the service's ready-made TPP configuration. */
  xs2a: { baseUrl: string; clientConfig: Xs2aClientFile };
  close(): Promise<void>;
}

export interface ClientConfig {
  description: string;
  issuer: string;
  discoveryUrl: string;
  authorizationEndpoint: string;
  apiBase: string;
  standardVersion: 'v4.0';
  clientId: string;
  redirectUris: string[];
  eventNotificationUrl: string | null;
  signingKey: { kid: string; alg: 'PS256'; privateJwk: object };
  bankSigningKeys: object;
  transport: { certificatePem: string; privateKeyPem: string; caCertificatePem: string };
}

export async function startBank(config: BankConfig, logger: Logger): Promise<Bank> {
  const keys = await loadOrCreateKeys(config.dataDir);
  const database = await openDatabase(config, logger);
  try {
    return await startOnDatabase(config, logger, keys, database);
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function startOnDatabase(
  config: BankConfig,
  logger: Logger,
  keys: KeyMaterial,
  database: BankDatabase,
): Promise<Bank> {
  const { pool } = database;
  await seedAccounts(pool);
  await seedEuAccounts(pool);
  const xs2aCa = await loadOrCreateCa(config.dataDir);
  const port = config.port === 0 ? await freePort() : config.port;
  const apiPort = config.apiPort === 0 ? await freePort() : config.apiPort;
  const pagesUrl = `http://${config.host}:${port}`;
  const issuer = `https://${config.host}:${apiPort}`;
  const apiBase = `${issuer}${PISP_BASE}`;

  const provider = createProvider({
    config,
    keys,
    pool,
    issuer,
    authorizationEndpoint: `${pagesUrl}/auth`,
    cookieKeys: [persistedSecret(config.dataDir, 'cookie-key')],
  });
  provider.on('server_error', (_ctx, error) => logger.error({ err: error }, 'authorization server error'));
  const providerCallback = provider.callback();
  const faults = watchFaults(config.dataDir);
  const bankKey = (await importJWK(keys.bankSigningKey, 'PS256')) as CryptoKey;
  const signer = (body: string) => signDetached(body, bankKey, keys.bankSigningKey.kid, issuer);

  // The customer's host.
  const redirectOrigins = [...new Set(config.redirectUris.map((uri) => new URL(uri).origin))];
  const pagesCsp = [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action 'self' ${redirectOrigins.join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  let pagesServer: http.Server | undefined;
  const pages = Fastify({
    // Fastify's own request lines are noise here (and its listen line says http for the TLS host).
    loggerInstance: logger.child({ host: 'pages' }, { level: 'warn' }) as FastifyBaseLogger,
    bodyLimit: 16 * 1024,
    serverFactory: (handler) => {
      pagesServer = http.createServer((request, response) => {
        response.setHeader('content-security-policy', pagesCsp);
        response.setHeader('x-frame-options', 'DENY');
        response.setHeader('x-content-type-options', 'nosniff');
        // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the forms' POSTs.
        response.setHeader('referrer-policy', 'same-origin');
        const pathname = (request.url ?? '/').split('?')[0] ?? '/';
        if (faults.current().outage && !pathname.startsWith('/assets/')) return unavailablePage(response);
        if (pathname === '/auth' || pathname.startsWith('/auth/')) return providerCallback(request, response);
        return handler(request, response);
      });
      return pagesServer;
    },
  });
  registerPages(pages, { pool, provider, pagesOrigin: pagesUrl });
  registerXs2aPages(pages, { pool, pagesOrigin: pagesUrl, stepMs: config.stepMs });

  // Sandbox Bank EU's API: its own Fastify instance, reached through the TLS host below.
  const xs2a = await createXs2aApi({
    pool,
    ca: new X509Certificate(xs2aCa.certPem),
    apiOrigin: issuer,
    pagesUrl,
    logger,
  });
  await xs2a.ready();

  // The provider-facing host.
  const api = Fastify({
    loggerInstance: logger.child({ host: 'api' }, { level: 'warn' }) as FastifyBaseLogger,
    bodyLimit: 64 * 1024,
    genReqId: () => randomUUID(),
    // A malformed or overlong path is refused before routing (no hooks, no error handler): the envelope, signed, too.
    frameworkErrors: (error, request, untyped) => {
      const reply = untyped as unknown as FastifyReply;
      const problem = toObError(error as FastifyError);
      const body = JSON.stringify(envelope(problem.status, problem.items(), String(request.id)));
      void signer(body).then((signature) =>
        reply
          .code(problem.status)
          .header('content-type', 'application/json; charset=utf-8')
          .header('x-fapi-interaction-id', String(request.id))
          .header('x-jws-signature', signature)
          .send(body),
      );
    },
    serverFactory: (handler) =>
      https.createServer(
        {
          key: keys.serverKeyPem,
          cert: keys.serverCertPem,
          // The UK face's clients' CA and Sandbox Bank EU's TPP CA; each face checks its own.
          ca: [keys.caCertPem, xs2aCa.certPem],
          requestCert: true,
          // Checked per path below: discovery and JWKS are public, everything else needs a certificate.
          rejectUnauthorized: false,
        },
        (request, response) => void providerFacing(request, response, handler),
      ),
  });
  const providerFacing = async (
    request: http.IncomingMessage,
    response: http.ServerResponse,
    handler: (request: http.IncomingMessage, response: http.ServerResponse) => void,
  ) => {
    const pathname = (request.url ?? '/').split('?')[0] ?? '/';
    const ob = pathname.startsWith('/open-banking/');
    const eu = pathname.startsWith(`${XS2A_BASE}/`);
    const current = faults.current();
    if (current.throttleSeconds > 0) {
      response.setHeader('retry-after', String(current.throttleSeconds));
      if (eu)
        return xs2aFault(request, response, 429, Xs2aCode.AccessExceeded, 'too many requests: retry later');
      return fault(response, 429, ErrorCode.TooManyRequests, 'too many requests: retry later', ob, signer);
    }
    if (current.outage) {
      if (eu)
        return xs2aFault(request, response, 503, Xs2aCode.ServiceUnavailable, 'the bank is unavailable');
      return fault(response, 503, ErrorCode.Unavailable, 'the bank is unavailable', ob, signer);
    }
    if (ob && current.answers === 'error500')
      return fault(response, 500, ErrorCode.ServerError, 'the bank failed to answer', true, signer);
    if (current.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, current.slowMs));
    if (eu) return xs2a.routing(request, response);
    if (ob) return handler(request, response);
    const publicPath = pathname === '/.well-known/openid-configuration' || pathname === '/jwks';
    if (!publicPath && !peerCertificate({ socket: request.socket }))
      return oauthError(
        response,
        401,
        'invalid_client',
        "a TLS client certificate from the bank's CA is required",
      );
    if (pathname === '/auth' || pathname.startsWith('/auth/') || pathname.startsWith('/interaction/'))
      return oauthError(response, 404, 'not_found', `the customer's pages are at ${pagesUrl}`);
    return providerCallback(request, response);
  };

  // Fastify parses text/plain by default: such a body reached the routes as a string (400 U016/U001, not 415).
  api.removeContentTypeParser('text/plain');
  api.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = String(body);
    if (nestsTooDeep(request.rawBody))
      return done(new ObError(400, ErrorCode.ResourceInvalidFormat, 'the body nests too deep'), undefined);
    try {
      done(null, JSON.parse(String(body), storable));
    } catch (error) {
      const problem =
        error instanceof ObError
          ? error
          : new ObError(400, ErrorCode.ResourceInvalidFormat, 'the body is not valid JSON');
      done(problem, undefined);
    }
  });
  api.addHook('onRequest', async (request, reply) => {
    reply.header('x-fapi-interaction-id', interactionId(request.headers['x-fapi-interaction-id']));
    const accept = request.headers.accept;
    if (accept && !/(^|,)\s*(application\/json|application\/\*|\*\/\*)/i.test(accept))
      throw new ObError(406, ErrorCode.NotAcceptable, 'this API answers application/json only');
  });
  // Every answer of the API is signed by the bank (detached JWS over the exact body).
  // The `answers` fault (faults.ts) bends exactly this step, so each wrong answer is otherwise real.
  api.addHook('onSend', async (_request, reply, payload) => {
    if (typeof payload === 'string' && payload.length > 0) {
      const answers = faults.current().answers;
      let body = payload;
      // A 200 that says nothing usable: the worst kind, since the status alone looks fine.
      if (answers === 'garbage' || answers === 'shapeless') reply.code(200);
      if (answers === 'garbage') body = '<html><body>502 Bad Gateway</body></html>';
      if (answers === 'shapeless') body = JSON.stringify({ Data: {}, Links: {}, Meta: {} });
      reply.header('content-type', 'application/json; charset=utf-8');
      if (answers !== 'unsigned')
        reply.header('x-jws-signature', await signer(answers === 'forged' ? `${body} ` : body));
      return body;
    }
    return payload;
  });
  api.setErrorHandler((error: FastifyError | ObError, request, reply) => {
    const problem = toObError(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'PISP API error');
    for (const [name, value] of Object.entries(problem.headers)) reply.header(name, value);
    return reply.code(problem.status).send(envelope(problem.status, problem.items(), String(request.id)));
  });
  api.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        envelope(
          404,
          [{ ErrorCode: ErrorCode.ResourceNotFound, Message: 'no such endpoint' }],
          String(request.id),
        ),
      ),
  );
  registerPispRoutes(api, {
    pool,
    provider,
    clientId: config.clientId,
    clientKeys: [publicJwk(keys.client.signingKey)],
    apiBase,
    stepMs: config.stepMs,
  });

  await pages.listen({ port, host: config.host });
  await api.listen({ port: apiPort, host: config.host });

  const eventsOn = config.eventUrl !== undefined;
  const engine = startEngine({ pool, stepMs: config.stepMs, logger, eventsOn });
  const notifier = startNotifier({
    pool,
    logger,
    url: config.eventUrl,
    issuer,
    apiBase,
    signingKey: bankKey,
    kid: keys.bankSigningKey.kid,
  });
  const housekeeping = setInterval(() => {
    void pool.query('delete from oidc_payloads where expires_at < now()').catch(() => {});
  }, 60_000);
  housekeeping.unref();

  const clientConfig: ClientConfig = {
    description:
      'The sandbox bank registered this client for the service (the obie provider). Made by the bank on first start; keys are kept in keys.json.',
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    authorizationEndpoint: `${pagesUrl}/auth`,
    apiBase,
    standardVersion: 'v4.0',
    clientId: config.clientId,
    redirectUris: config.redirectUris,
    eventNotificationUrl: config.eventUrl ?? null,
    signingKey: { kid: keys.client.signingKey.kid, alg: 'PS256', privateJwk: keys.client.signingKey },
    bankSigningKeys: { keys: [publicJwk(keys.bankSigningKey)] },
    transport: {
      certificatePem: keys.client.transportCertPem,
      privateKeyPem: keys.client.transportKeyPem,
      caCertificatePem: keys.caCertPem,
    },
  };
  writeFileSync(path.join(config.dataDir, 'client.json'), `${JSON.stringify(clientConfig, null, 2)}\n`, {
    mode: 0o600,
  });
  const xs2aBaseUrl = `${issuer}${XS2A_BASE}`;
  const xs2aClientConfig = await writeXs2aClientConfig({
    dataDir: config.dataDir,
    ca: xs2aCa,
    tppId: config.tppId,
    baseUrl: xs2aBaseUrl,
    pagesUrl,
    tlsCaCertificatePem: keys.caCertPem,
  });

  let closed: Promise<void> | undefined;
  return {
    pagesUrl,
    issuer,
    apiBase,
    config,
    keys,
    database,
    provider,
    engine,
    faults,
    clientConfig,
    xs2a: { baseUrl: xs2aBaseUrl, clientConfig: xs2aClientConfig },
    close: () => {
      closed ??= (async () => {
        clearInterval(housekeeping);
        faults.stop();
        await Promise.allSettled([pages.close(), api.close(), xs2a.close()]);
        pagesServer?.closeAllConnections();
        await engine.stop();
        await notifier.stop();
        await database.close();
      })();
      return closed;
    },
  };
}

/**
 * Postgres jsonb refuses \u0000 and lone surrogates (a 500 at the insert): such bodies are not
 * valid input here, in a key or a value.
 */
function storable(key: string, value: unknown): unknown {
  const bad = (text: string) => text.includes('\0') || !text.isWellFormed();
  if (bad(key) || (typeof value === 'string' && bad(value)))
    throw new ObError(400, ErrorCode.ResourceInvalidFormat, 'the body holds a NUL or an unpaired surrogate');
  return value;
}

/** The standard's bodies nest a few levels; thousands overflow the stack of any recursive walk. */
const MAX_JSON_DEPTH = 32;
function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return true;
    } else if (char === '}' || char === ']') depth -= 1;
  }
  return false;
}

function toObError(error: FastifyError | ObError): ObError {
  if (error instanceof ObError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ObError(415, ErrorCode.UnsupportedMediaType, 'send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ObError(413, ErrorCode.ResourceInvalidFormat, 'the body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ObError(400, ErrorCode.ResourceInvalidFormat, 'the body is missing or malformed');
    default:
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
        return new ObError(error.statusCode, ErrorCode.FieldInvalid, error.message);
      return new ObError(500, ErrorCode.ServerError, 'the bank failed to answer');
  }
}

/** Echoed when it looks like an id (RFC 4122 is asked; any short token is tolerated), else ours. */
function interactionId(header: unknown): string {
  return typeof header === 'string' && /^[A-Za-z0-9-]{1,64}$/.test(header) ? header : randomUUID();
}

async function fault(
  response: http.ServerResponse,
  status: number,
  code: (typeof ErrorCode)[keyof typeof ErrorCode],
  message: string,
  signed: boolean,
  sign: (body: string) => Promise<string>,
) {
  const id = randomUUID();
  const body = signed
    ? JSON.stringify(envelope(status, [{ ErrorCode: code, Message: message }], id))
    : JSON.stringify({
        error: status === 429 ? 'slow_down' : 'temporarily_unavailable',
        error_description: message,
      });
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('x-fapi-interaction-id', id);
  if (signed) response.setHeader('x-jws-signature', await sign(body));
  response.end(body);
}

/** Sandbox Bank EU's faults in its own error model, with the X-Request-ID echoed when it is one. */
function xs2aFault(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  status: number,
  code: (typeof Xs2aCode)[keyof typeof Xs2aCode],
  text: string,
) {
  const given = request.headers['x-request-id'];
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.setHeader('x-request-id', typeof given === 'string' && uuid.test(given) ? given : randomUUID());
  response.end(JSON.stringify(errorBody(code, text)));
}

function oauthError(response: http.ServerResponse, status: number, error: string, description: string) {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json; charset=utf-8');
  response.end(JSON.stringify({ error, error_description: description }));
}

function unavailablePage(response: http.ServerResponse) {
  response.statusCode = 503;
  response.setHeader('content-type', 'text/html; charset=utf-8');
  response.setHeader('retry-after', '30');
  response.end(
    page(
      'Unavailable',
      html`<h1>Sandbox Bank is unavailable</h1><p>The bank cannot take payments right now. Please try again later.</p>`,
    ),
  );
}

function persistedSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
