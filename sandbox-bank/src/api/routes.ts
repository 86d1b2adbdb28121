import type { FastifyInstance, FastifyRequest } from 'fastify';
import { importJWK, type JWK } from 'jose';
import type Provider from 'oidc-provider';
import type pg from 'pg';
import type { z } from 'zod';
import { findAccount } from '../bank/accounts.ts';
import { consumeConsent, findConsent, insertConsent } from '../bank/consents.ts';
import { bodyHash, recall, remember } from '../bank/idempotency.ts';
import { ID_SHAPE } from '../bank/ids.ts';
import { findPayment, insertPayment } from '../bank/payments.ts';
import { inTransaction } from '../db/transaction.ts';
import { certificateThumbprint, INTENT_CLAIM, peerCertificate } from '../oidc/provider.ts';
import { ErrorCode, ObError } from './errors.ts';
import { verifyDetached } from './jws.ts';
import { ConsentRequest, PaymentRequest } from './schemas.ts';
import { consentView, fundsView, paymentDetailsView, paymentView } from './views.ts';

/**
 * The PISP API (`/open-banking/v4.0/pisp`): the stages of every call are the same (the grant,
 * then the request's signature and idempotency key, then the body, then the rules under a
 * transaction), and every refusal is an ObError the error handler turns into the envelope.
 */
export const PISP_BASE = '/open-banking/v4.0/pisp';

export interface ApiContext {
  pool: pg.Pool;
  provider: Provider;
  clientId: string;
  clientKeys: JWK[];
  apiBase: string;
  stepMs: number;
}

type Grant = 'client' | 'customer';
interface Caller {
  clientId: string;
  consentId: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
}

const IDEMPOTENCY_KEY = /^(?!\s)(.*)(\S)$/;

export function registerPispRoutes(app: FastifyInstance, context: ApiContext): void {
  const { pool, apiBase } = context;

  app.post(`${PISP_BASE}/domestic-payment-consents`, async (request, reply) => {
    const caller = await authenticate(context, request, 'client');
    const key = idempotencyKey(request);
    await verifySignature(context, request, caller.clientId);
    const body = parse(ConsentRequest, request.body);
    requireGbp(body.Data.Initiation.InstructedAmount.Currency);
    requirePence(body.Data.Initiation.InstructedAmount.Amount);
    const hash = bodyHash(body);
    const consent = await inTransaction(pool, async (db) => {
      const known = await recall(db, caller.clientId, 'consent', key, hash);
      if (known) {
        if (!known.sameBody) throw idempotencyReuse();
        return findConsent(db, known.resourceId);
      }
      const { Data, Risk } = body;
      const created = await insertConsent(db, caller.clientId, Data, Risk);
      await remember(db, caller.clientId, 'consent', key, hash, created.id);
      return created;
    });
    if (!consent) throw new ObError(500, ErrorCode.ServerError, 'the remembered consent is gone');
    reply.code(201);
    return consentView(consent, undefined, apiBase);
  });

  app.get<{ Params: { ConsentId: string } }>(
    `${PISP_BASE}/domestic-payment-consents/:ConsentId`,
    async (request) => {
      const caller = await authenticate(context, request, 'client');
      const consent = await ownConsent(pool, caller, request.params.ConsentId);
      const account = consent.debtorAccountId ? await findAccount(pool, consent.debtorAccountId) : undefined;
      return consentView(consent, account, apiBase);
    },
  );

  app.get<{ Params: { ConsentId: string } }>(
    `${PISP_BASE}/domestic-payment-consents/:ConsentId/funds-confirmation`,
    async (request) => {
      const caller = await authenticate(context, request, 'customer');
      const consent = await ownConsent(pool, caller, request.params.ConsentId);
      boundTo(caller, consent.id);
      if (consent.status !== 'AUTH')
        throw new ObError(400, ErrorCode.ConsentInvalidStatus, `the consent is ${consent.status}, not AUTH`);
      const account = consent.debtorAccountId ? await findAccount(pool, consent.debtorAccountId) : undefined;
      const amount = (consent.data.Initiation as { InstructedAmount: { Amount: string } }).InstructedAmount
        .Amount;
      return fundsView(
        consent.id,
        account !== undefined && compareMoney(account.balance, amount) >= 0,
        apiBase,
      );
    },
  );

  app.post(`${PISP_BASE}/domestic-payments`, async (request, reply) => {
    const caller = await authenticate(context, request, 'customer');
    const key = idempotencyKey(request);
    await verifySignature(context, request, caller.clientId);
    const body = parse(PaymentRequest, request.body);
    boundTo(caller, body.Data.ConsentId);
    const hash = bodyHash(body);
    const payment = await inTransaction(pool, async (db) => {
      const known = await recall(db, caller.clientId, 'payment', key, hash);
      if (known) {
        if (!known.sameBody) throw idempotencyReuse();
        return findPayment(db, known.resourceId);
      }
      const consent = await findConsent(db, body.Data.ConsentId, true);
      if (!consent || consent.clientId !== caller.clientId) throw unknown('Data.ConsentId');
      if (consent.status !== 'AUTH')
        throw new ObError(400, ErrorCode.ConsentInvalidStatus, `the consent is ${consent.status}, not AUTH`);
      if (bodyHash(consent.data.Initiation) !== bodyHash(body.Data.Initiation))
        throw new ObError(
          400,
          ErrorCode.ConsentMismatch,
          'the Initiation differs from the consent',
          'Data.Initiation',
        );
      if (bodyHash(consent.risk) !== bodyHash(body.Risk))
        throw new ObError(400, ErrorCode.ConsentMismatch, 'the Risk differs from the consent', 'Risk');
      const created = await insertPayment(
        db,
        consent.id,
        caller.clientId,
        { Initiation: body.Data.Initiation },
        context.stepMs,
      );
      await consumeConsent(db, consent.id);
      await remember(db, caller.clientId, 'payment', key, hash, created.id);
      return created;
    });
    if (!payment) throw new ObError(500, ErrorCode.ServerError, 'the remembered payment is gone');
    reply.code(201);
    return paymentView(payment, await debtorOf(pool, payment.consentId), apiBase);
  });

  app.get<{ Params: { DomesticPaymentId: string } }>(
    `${PISP_BASE}/domestic-payments/:DomesticPaymentId`,
    async (request) => {
      const caller = await authenticate(context, request, 'client');
      const payment = await ownPayment(pool, caller, request.params.DomesticPaymentId);
      return paymentView(payment, await debtorOf(pool, payment.consentId), apiBase);
    },
  );

  app.get<{ Params: { DomesticPaymentId: string } }>(
    `${PISP_BASE}/domestic-payments/:DomesticPaymentId/payment-details`,
    async (request) => {
      const caller = await authenticate(context, request, 'client');
      const payment = await ownPayment(pool, caller, request.params.DomesticPaymentId);
      return paymentDetailsView(payment, apiBase);
    },
  );
}

/**
 * The grant each call needs: client credentials, or the customer's authorization-code token
 * (which carries the one consent it was issued for). Both are bound to the client's TLS
 * certificate (RFC 8705): a token presented over another certificate is refused.
 */
async function authenticate(context: ApiContext, request: FastifyRequest, grant: Grant): Promise<Caller> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer ([\w\-.~+/]+=*)$/.exec(header) : null;
  if (!match?.[1])
    throw new ObError(401, ErrorCode.Unauthorized, 'a Bearer access token is required', 'Authorization');
  const value = match[1];
  const findClientToken = (v: string) => context.provider.ClientCredentials.find(v) as Promise<unknown>;
  const findCustomerToken = (v: string) => context.provider.AccessToken.find(v) as Promise<unknown>;
  const [find, other] =
    grant === 'client' ? [findClientToken, findCustomerToken] : [findCustomerToken, findClientToken];
  const token = (await find(value)) as
    | { clientId: string; scope?: string; 'x5t#S256'?: string; extra?: Record<string, unknown> }
    | undefined;
  if (!token) {
    if (await other(value))
      throw new ObError(
        403,
        ErrorCode.Forbidden,
        grant === 'client'
          ? 'this call needs a client credentials token'
          : "this call needs the customer's authorization-code token",
      );
    throw new ObError(401, ErrorCode.Unauthorized, 'the access token is unknown or expired', 'Authorization');
  }
  if (token.clientId !== context.clientId)
    throw new ObError(403, ErrorCode.Forbidden, 'the token belongs to another client');
  if (!token.scope?.split(' ').includes('payments'))
    throw new ObError(403, ErrorCode.Forbidden, 'the token lacks the payments scope');
  const cert = peerCertificate(request.raw);
  if (!cert || !token['x5t#S256'] || certificateThumbprint(cert) !== token['x5t#S256'])
    throw new ObError(401, ErrorCode.Unauthorized, "the token is not bound to this connection's certificate");
  const consentId = token.extra?.[INTENT_CLAIM];
  return { clientId: token.clientId, consentId: typeof consentId === 'string' ? consentId : undefined };
}

function boundTo(caller: Caller, consentId: string): void {
  if (caller.consentId !== consentId)
    throw new ObError(403, ErrorCode.Forbidden, 'the access token was issued for another consent');
}

function idempotencyKey(request: FastifyRequest): string {
  const key = request.headers['x-idempotency-key'];
  if (key === undefined)
    throw new ObError(400, ErrorCode.HeaderMissing, 'x-idempotency-key is required', 'x-idempotency-key');
  if (typeof key !== 'string' || key.length > 40 || !IDEMPOTENCY_KEY.test(key))
    throw new ObError(
      400,
      ErrorCode.HeaderInvalid,
      'x-idempotency-key must be 1-40 characters without edge spaces',
      'x-idempotency-key',
    );
  return key;
}

async function verifySignature(
  context: ApiContext,
  request: FastifyRequest,
  clientId: string,
): Promise<void> {
  const header = request.headers['x-jws-signature'];
  await verifyDetached(
    typeof header === 'string' ? header : undefined,
    request.rawBody ?? '',
    context.clientKeys,
    clientId,
    (jwk) => importJWK(jwk, 'PS256') as Promise<CryptoKey>,
  );
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = issue.path.join('.');
  const code =
    issue.code === 'unrecognized_keys'
      ? ErrorCode.FieldUnexpected
      : issue.code === 'invalid_type' && issue.input === undefined
        ? ErrorCode.FieldMissing
        : ErrorCode.FieldInvalid;
  const keys = issue.code === 'unrecognized_keys' ? `: ${issue.keys.join(', ')}` : '';
  throw new ObError(400, code, `${path || 'body'}: ${issue.message}${keys}`.slice(0, 500), path || undefined);
}

function requireGbp(currency: string): void {
  if (currency !== 'GBP')
    throw new ObError(
      400,
      ErrorCode.UnsupportedCurrency,
      'this bank makes domestic payments in GBP only',
      'Data.Initiation.InstructedAmount.Currency',
    );
}

/**
 * Balances are kept in pence (numeric(18, 2)): a sub-penny amount would round away in the debit,
 * so a payment of 0.004 would complete with nothing taken. The schema's 5 decimals are for other
 * currencies.
 */
function requirePence(amount: string): void {
  if (/\.\d{3,}$/.test(amount))
    throw new ObError(
      400,
      ErrorCode.FieldInvalid,
      'a GBP amount has at most two decimal places',
      'Data.Initiation.InstructedAmount.Amount',
    );
}

const unknown = (path: string) => new ObError(400, ErrorCode.ResourceNotFound, 'no such resource', path);
const idempotencyReuse = () =>
  new ObError(
    400,
    ErrorCode.IdempotencyKeyReused,
    'this x-idempotency-key was used with another body',
    'x-idempotency-key',
  );

/** Unknown ids answer 400 (the standard), and so do another client's. */
async function ownConsent(pool: pg.Pool, caller: Caller, id: string) {
  const consent = ID_SHAPE.test(id) ? await findConsent(pool, id) : undefined;
  if (!consent || consent.clientId !== caller.clientId) throw unknown('ConsentId');
  return consent;
}

async function ownPayment(pool: pg.Pool, caller: Caller, id: string) {
  const payment = ID_SHAPE.test(id) ? await findPayment(pool, id) : undefined;
  if (!payment || payment.clientId !== caller.clientId) throw unknown('DomesticPaymentId');
  return payment;
}

async function debtorOf(pool: pg.Pool, consentId: string) {
  const consent = await findConsent(pool, consentId);
  return consent?.debtorAccountId ? findAccount(pool, consent.debtorAccountId) : undefined;
}

/** Decimal strings compared exactly (no floats): -1, 0 or 1. */
export function compareMoney(a: string, b: string): number {
  const scale = (value: string) => {
    const [whole = '0', fraction = ''] = value.split('.');
    return BigInt(whole + fraction.padEnd(5, '0').slice(0, 5));
  };
  const difference = scale(a) - scale(b);
  return difference === 0n ? 0 : difference > 0n ? 1 : -1;
}
