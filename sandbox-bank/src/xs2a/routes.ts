import { randomUUID, type X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type pg from 'pg';
import type { Logger } from '../logger.ts';
import { euAccounts } from './accounts.ts';
import { formatError, Xs2aCode, Xs2aError } from './errors.ts';
import {
  cancel,
  findXs2aPayment,
  insertXs2aPayment,
  PRODUCTS,
  type Product,
  type Xs2aPayment,
} from './payments.ts';
import { PaymentBody } from './schemas.ts';
import { identifyConnection, requestId, type Tpp, verifyRequest } from './tpp.ts';
import { paymentView, statusView } from './views.ts';

/**
 * Sandbox Bank EU's API (Berlin Group NextGenPSD2 1.3.11, payment initiation), served under
 * `/xs2a` on the bank's TLS host: its own Fastify instance, so none of the UK face's hooks
 * (interaction id, JWS signing, OB envelope) touch it. The TLS listener hands it every
 * `/xs2a/` request after the fault switches (app.ts). Stages of every call: the TPP's
 * certificate and signature (tpp.ts), the request's headers, the body, then one guarded write.
 */
export const XS2A_BASE = '/xs2a';
const PAYMENTS = `${XS2A_BASE}/v1/payments`;
const PAYMENT_ID = /^sct-[0-9a-f]{32}$/;
const AUTHORISATION_ID = /^sca-[0-9a-f]{32}$/;
const KNOWN_PRODUCTS = [
  'target-2-payments',
  'cross-border-credit-transfers',
  'pain.001-sepa-credit-transfers',
  'pain.001-instant-sepa-credit-transfers',
  'pain.001-target-2-payments',
  'pain.001-cross-border-credit-transfers',
];

export interface Xs2aContext {
  pool: pg.Pool;
  ca: X509Certificate;
  /** `https://127.0.0.1:3301`: links in answers are absolute. */
  apiOrigin: string;
  pagesUrl: string;
  logger: Logger;
}

declare module 'fastify' {
  interface FastifyRequest {
    tpp?: Tpp;
  }
}

export async function createXs2aApi(context: Xs2aContext): Promise<FastifyInstance> {
  const { pool, apiOrigin, pagesUrl } = context;
  const app = Fastify({
    loggerInstance: context.logger.child(
      { host: 'api', face: 'xs2a' },
      { level: 'warn' },
    ) as FastifyBaseLogger,
    bodyLimit: 16 * 1024,
    genReqId: () => randomUUID(),
    // A malformed path (bad percent-encoding, too long) is refused before routing: still in this face's model.
    frameworkErrors: (error, request, untyped) => {
      const reply = untyped as unknown as FastifyReply;
      const problem = toXs2aError(error as FastifyError);
      void reply
        .code(problem.status >= 500 ? 400 : problem.status)
        .header('x-request-id', requestId(request) ?? String(request.id))
        .send(problem.status >= 500 ? formatError('the request is malformed').body() : problem.body());
    },
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    request.rawBody = String(body);
    try {
      done(null, JSON.parse(request.rawBody));
    } catch {
      done(formatError('the body is not valid JSON'), undefined);
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    // Echoed when it is the UUID the standard asks for; otherwise ours (the request is refused anyway).
    reply.header('x-request-id', requestId(request) ?? String(request.id));
    const accept = request.headers.accept;
    request.tpp = identifyConnection(request, context.ca);
    if (accept && !/(^|,)\s*(application\/json|application\/\*|\*\/\*)/i.test(accept))
      throw new Xs2aError(406, Xs2aCode.NotAcceptable, 'this API answers application/json only');
  });
  app.addHook('preHandler', async (request) => {
    if (request.tpp) request.tpp = verifyRequest(request, context.ca, request.tpp);
  });
  app.setErrorHandler((error: FastifyError | Xs2aError, request, reply) => {
    const problem = toXs2aError(error);
    if (problem.status >= 500) request.log.error({ err: error }, 'XS2A API error');
    else request.log.info({ code: problem.code, requestId: request.id }, 'XS2A request refused');
    return reply.code(problem.status).send(problem.body());
  });
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send(new Xs2aError(404, Xs2aCode.ResourceUnknown, 'no such endpoint').body()),
  );

  const link = (path: string) => ({ href: `${apiOrigin}${path}` });
  const selfPath = (payment: Xs2aPayment) => `${PAYMENTS}/${payment.product}/${payment.id}`;

  app.post<{ Params: { product: string } }>(`${PAYMENTS}/:product`, async (request, reply) => {
    const product = productOf(request.params.product);
    const tpp = caller(request);
    const psuIp = header(request, 'psu-ip-address');
    if (!psuIp || isIP(psuIp) === 0)
      throw formatError('PSU-IP-Address must be an IP address', 'PSU-IP-Address');
    const redirectUri = redirectTarget(header(request, 'tpp-redirect-uri'), 'TPP-Redirect-URI');
    if (!redirectUri)
      throw formatError(
        'TPP-Redirect-URI is required: this bank offers the redirect approach only',
        'TPP-Redirect-URI',
      );
    const nokRedirectUri = redirectTarget(header(request, 'tpp-nok-redirect-uri'), 'TPP-Nok-Redirect-URI');
    const body = parseBody(request.body);
    let debtorAccountId: string | null = null;
    if (body.debtorAccount) {
      const iban = body.debtorAccount.iban;
      const account = (await euAccounts(pool)).find((item) => item.iban === iban);
      if (!account)
        throw formatError('the debtor account is not an account of this bank', 'debtorAccount.iban');
      debtorAccountId = account.id;
    }
    const payment = await insertXs2aPayment(pool, {
      tppId: tpp.authorisationNumber,
      product,
      data: body,
      debtorAccountId,
      redirectUri,
      nokRedirectUri,
      psuIpAddress: psuIp,
    });
    const self = selfPath(payment);
    reply.code(201).header('location', `${apiOrigin}${self}`).header('aspsp-sca-approach', 'REDIRECT');
    return {
      transactionStatus: payment.status,
      paymentId: payment.id,
      _links: {
        scaRedirect: { href: `${pagesUrl}${XS2A_BASE}/sca/${payment.authorisationId}` },
        self: link(self),
        status: link(`${self}/status`),
        scaStatus: link(`${self}/authorisations/${payment.authorisationId}`),
      },
    };
  });

  app.get<{ Params: { product: string; paymentId: string } }>(
    `${PAYMENTS}/:product/:paymentId`,
    async (request) => {
      const payment = await ownPayment(pool, request);
      return paymentView(payment, await euAccounts(pool));
    },
  );

  app.get<{ Params: { product: string; paymentId: string } }>(
    `${PAYMENTS}/:product/:paymentId/status`,
    async (request) => statusView(await ownPayment(pool, request)),
  );

  app.delete<{ Params: { product: string; paymentId: string } }>(
    `${PAYMENTS}/:product/:paymentId`,
    async (request, reply) => {
      const payment = await ownPayment(pool, request);
      if (!(await cancel(pool, payment.id)))
        throw new Xs2aError(
          405,
          Xs2aCode.CancellationInvalid,
          `the payment is ${(await findXs2aPayment(pool, payment.id))?.status ?? payment.status}: only a payment not yet authorised (RCVD) can be cancelled`,
        );
      return reply.code(204).send();
    },
  );

  app.get<{ Params: { product: string; paymentId: string } }>(
    `${PAYMENTS}/:product/:paymentId/authorisations`,
    async (request) => ({ authorisationIds: [(await ownPayment(pool, request)).authorisationId] }),
  );

  app.get<{ Params: { product: string; paymentId: string; authorisationId: string } }>(
    `${PAYMENTS}/:product/:paymentId/authorisations/:authorisationId`,
    async (request) => {
      const payment = await ownPayment(pool, request);
      const { authorisationId } = request.params;
      if (!AUTHORISATION_ID.test(authorisationId) || authorisationId !== payment.authorisationId)
        throw new Xs2aError(
          403,
          Xs2aCode.ResourceUnknown,
          'no such authorisation of this payment',
          'authorisationId',
        );
      return { scaStatus: payment.scaStatus };
    },
  );

  return app;
}

function productOf(value: string): Product {
  const product = PRODUCTS.find((known) => known === value);
  if (product) return product;
  throw new Xs2aError(
    404,
    Xs2aCode.ProductUnknown,
    KNOWN_PRODUCTS.includes(value)
      ? `this bank does not offer ${value}: only ${PRODUCTS.join(' and ')}`
      : 'no such payment product',
  );
}

function caller(request: FastifyRequest): Tpp {
  if (!request.tpp) throw new Xs2aError(500, Xs2aCode.InternalError, 'the caller was not identified');
  return request.tpp;
}

/**
 * Unknown, another TPP's, or under another product: the same answer (RESOURCE_UNKNOWN, 403 as the
 * Implementation Guidelines give it for a resource addressed in the path), so nothing leaks.
 */
async function ownPayment(
  pool: pg.Pool,
  request: FastifyRequest<{ Params: { product: string; paymentId: string } }>,
): Promise<Xs2aPayment> {
  const product = productOf(request.params.product);
  const tpp = caller(request);
  const { paymentId } = request.params;
  const payment = PAYMENT_ID.test(paymentId) ? await findXs2aPayment(pool, paymentId) : undefined;
  if (!payment || payment.tppId !== tpp.authorisationNumber || payment.product !== product)
    throw new Xs2aError(403, Xs2aCode.ResourceUnknown, 'no such payment', 'paymentId');
  return payment;
}

/** Where the customer returns: https, or http on loopback (development); never a script URL. */
function redirectTarget(value: string | undefined, name: string): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw formatError(`${name} must be an absolute URI`, name);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (
    value.length > 2000 ||
    url.username ||
    url.password ||
    !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback))
  )
    throw formatError(`${name} must be an https URI (http only on loopback)`, name);
  return url.href;
}

function parseBody(body: unknown) {
  const result = PaymentBody.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.join('.');
  const keys = issue.code === 'unrecognized_keys' ? `: ${issue.keys.join(', ')}` : '';
  throw formatError(`${path || 'body'}: ${issue.message}${keys}`, path || undefined);
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function toXs2aError(error: FastifyError | Xs2aError): Xs2aError {
  if (error instanceof Xs2aError) return error;
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new Xs2aError(415, Xs2aCode.UnsupportedMediaType, 'send application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new Xs2aError(413, Xs2aCode.FormatError, 'the body is too large');
    default:
      if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500)
        return formatError(error.message);
      return new Xs2aError(500, Xs2aCode.InternalError, 'the bank failed to answer');
  }
}
