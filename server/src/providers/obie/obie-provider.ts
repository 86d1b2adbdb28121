import {
  AppError,
  catchUp,
  OBIE_PROVIDER,
  type ObieFacts,
  obieReport,
  type PaymentRecord,
  reportFromBank,
} from '@pis/shared';
import { decodeJwt } from 'jose';
import { AuthorizationResponseError } from 'openid-client';
import { type ObieConnectionConfig, readObieClient } from '../../config.ts';
import { ObieAuthorization, ObieAuthorizationRequest } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { bankLink, type LinkConfig } from '../../links/customer-links.ts';
import type { Logger } from '../../logger.ts';
import { providerReadsCapped } from '../../observability/metrics.ts';
import { publicClientAddress } from '../../rate-limits/client-address.ts';
import { consumeRateLimit } from '../../rate-limits/rate-limit-store.ts';
import type { PaymentProvider, StatusUpdate } from '../payment-provider.ts';
import { ProviderOutcomeUnknownError } from '../payment-provider.ts';
import {
  type ApiAnswer,
  BankApiError,
  connectObie,
  NOTIFICATION_MAX_AGE_SECONDS,
  type ObieConnection,
} from './obie-connection.ts';
import { consentBody, consentIdempotencyKey, paymentBody, paymentIdempotencyKey } from './obie-requests.ts';

/** The customer's grant, from the callback to the submit: the bank's token and the consent it is for. */
interface ObieGrant {
  accessToken: string;
  consentId: string;
  bankId: string;
}

/** Every member a provider whose customers approve at the bank has, as obie has them. */
export type ObieProvider = Required<Omit<PaymentProvider, 'pollsFromStart'>>;

/** Authorization requests kept per payment: a link opened over and over keeps only its latest. */
const OPEN_REQUESTS_KEPT = 10;
/** At most OPEN_REQUESTS_KEPT opens of one payment's link in this window, from any addresses. */
const OPENS_WINDOW_SECONDS = 60;
/**
 * Reads of one payment at the bank (every GET or sync of an unfinished obie payment asks it):
 * at most this many in READS_WINDOW_SECONDS, whoever reads. Past it the read answers what we
 * know, without the bank: a merchant polling in a loop cannot make us hammer the bank.
 */
const READS_PER_WINDOW = 30;
const READS_WINDOW_SECONDS = 10;

const step =
  (facts: ObieFacts): StatusUpdate =>
  (payment, now) =>
    reportFromBank(payment, obieReport(facts), now);

/**
 * The `obie` provider: UK Open Banking domestic payments, one connection per ASPSP (bank) from
 * configuration. It keeps its own per-payment facts (consent id, bank payment id; the customer's
 * authorization requests) in `obie_authorization` and `obie_authorization_request` and never
 * writes payments: what it learns is returned as a lifecycle step (`reportFromBank`, mapped by
 * shared/obie-statuses.ts).
 */
export function createObieProvider(
  connections: readonly ObieConnectionConfig[],
  /** Signs the customer's link (ours: the bank's own PAR URL lives only 60 s). */
  links: LinkConfig,
  orm: Orm,
  logger: Logger,
  /** Tests wrap the connection to lose an answer on the way back (the bank still acted). */
  connect: typeof connectObie = connectObie,
): ObieProvider {
  const byBank = new Map(connections.map((connection) => [connection.bankId, connection]));
  const connected = new Map<string, Promise<ObieConnection>>();

  /** Connects on first use (discovery), and again after a failure rather than keep a broken one. */
  function connection(bankId: string): Promise<ObieConnection> {
    const known = connected.get(bankId);
    if (known) return known;
    const settings = byBank.get(bankId);
    if (!settings) throw new AppError('VALIDATION_FAILED', `Bank ${bankId} is not reachable through obie`);
    const opening = connect(readObieClient(settings.clientFile));
    connected.set(bankId, opening);
    opening.catch((error: unknown) => {
      connected.delete(bankId);
      logger.warn({ err: error, bankId }, 'obie connection failed');
    });
    return opening;
  }

  /** The only connection when the payment names no bank (see docs/decisions/070-obie-provider.md). */
  const bankOf = (payment: Pick<PaymentRecord, 'bankId'>): string => {
    if (payment.bankId) return payment.bankId;
    const [only, ...others] = byBank.keys();
    if (!only || others.length > 0)
      throw new AppError('VALIDATION_FAILED', 'bankId is required for provider obie');
    return only;
  };

  const authorizationOf = (paymentId: string) => orm.em.fork().findOne(ObieAuthorization, { paymentId });

  async function consentAt(
    bank: ObieConnection,
    payment: PaymentRecord,
    customerAddress: string | undefined,
  ) {
    const token = await bank.clientCredentials();
    const answer = await bank.api('POST', '/domestic-payment-consents', {
      token,
      body: consentBody(payment),
      idempotencyKey: consentIdempotencyKey(payment.id),
      customerAddress: publicClientAddress(customerAddress),
    });
    return { consentId: required(answer, 'ConsentId'), status: required(answer, 'Status') };
  }

  /** Where the payment stands at its bank, as facts: the bank's payment once made, else the consent. */
  /** Records a notification's jti; false when it was seen before (and forgets ones past their age). */
  async function firstSeen(bankId: string, jti: string): Promise<boolean> {
    const connection = orm.em.fork().getConnection();
    await connection.execute(
      `delete from obie_notification_seen where seen_at < now() - make_interval(secs => ?)`,
      [NOTIFICATION_MAX_AGE_SECONDS + 60],
      'run',
    );
    const inserted = await connection.execute<{ jti: string }[]>(
      `insert into obie_notification_seen (bank_id, jti) values (?, ?) on conflict do nothing returning jti`,
      [bankId, jti.slice(0, 128)],
    );
    return inserted.length === 1;
  }

  async function factsOf(bank: ObieConnection, authorization: ObieAuthorization): Promise<ObieFacts> {
    const token = await bank.clientCredentials();
    const consent = await bank.api('GET', `/domestic-payment-consents/${authorization.consentId}`, { token });
    const consentStatus = required(consent, 'Status');
    if (!authorization.bankPaymentId) return { consentStatus, bankStatus: null };
    const payment = await bank.api('GET', `/domestic-payments/${authorization.bankPaymentId}`, { token });
    required(payment, 'Status');
    return paymentFacts(consentStatus, payment.body);
  }

  return {
    code: OBIE_PROVIDER,
    keepsPayments: true,
    bankIds: () => [...byBank.keys()],

    async startPayment(payment, now, options) {
      const bankId = bankOf(payment);
      const bank = await connection(bankId);
      const { consentId } = await consentAt(bank, payment, options?.customerAddress);
      const em = orm.em.fork();
      // A start repeated for the same payment (a reconciled claim, a second bank choice after a
      // failure) finds the same consent (same idempotency key) and voids any earlier request.
      await em.transactional(async (tx) => {
        await tx.upsert(ObieAuthorization, {
          paymentId: payment.id,
          bankId,
          consentId,
          callbackAt: null,
          bankPaymentId: null,
          createdAt: now,
        });
        await tx.nativeDelete(ObieAuthorizationRequest, { paymentId: payment.id });
      });
      // Our link, not the bank's PAR URL: the bank keeps a PAR request for 60 s, a link a merchant
      // emails must last longer. Opening it makes the PAR request (authorize).
      return { customerUrl: bankLink(links, OBIE_PROVIDER, payment.id, now, options?.linkNotAfter).url };
    },

    async authorize({ id: paymentId }, now) {
      const authorization = await authorizationOf(paymentId);
      if (!authorization || authorization.callbackAt) return null;
      // The per-address limit does not bound a link spread over many addresses: each open is a
      // signed call to the bank and a request it holds. No customer opens a link this often.
      // Counted before the bank is called (one atomic count: opens at the same instant cannot
      // all pass a count of what was already stored).
      const opens = await consumeRateLimit(orm.em.fork(), {
        key: `obie-open:${paymentId}`,
        limit: OPEN_REQUESTS_KEPT,
        windowSeconds: OPENS_WINDOW_SECONDS,
        now,
      });
      if (!opens.allowed) {
        throw new AppError(
          'RATE_LIMITED',
          'This link was opened too many times in the last minute. Please try again in a minute.',
        );
      }
      const request = await (await connection(authorization.bankId)).authorizationRequest(
        authorization.consentId,
      );
      // Every open request stays good: a customer with two tabs who finishes in the older one is
      // not refused (the bank would then refuse the newer one too, as its consent is used, and
      // the payment would be stuck authorised with nothing submitted). The first answer back
      // submits (callbackAt). A link opened over and over keeps its last few.
      const em = orm.em.fork();
      await em.insert(ObieAuthorizationRequest, {
        state: request.state,
        paymentId,
        nonce: request.nonce,
        codeVerifier: request.codeVerifier,
        createdAt: now,
      });
      await em.getConnection().execute(
        `delete from obie_authorization_request where payment_id = ? and state not in
           (select state from obie_authorization_request where payment_id = ? order by created_at desc limit ?)`,
        [paymentId, paymentId, OPEN_REQUESTS_KEPT],
      );
      // The customer came back meanwhile (another tab): nothing to send them to.
      return (await authorizationOf(paymentId))?.callbackAt ? null : request.url.href;
    },

    async readStatus(payment) {
      const authorization = await authorizationOf(payment.id);
      if (!authorization) return catchUp;
      const reads = await consumeRateLimit(orm.em.fork(), {
        key: `obie-read:${payment.id}`,
        limit: READS_PER_WINDOW,
        windowSeconds: READS_WINDOW_SECONDS,
      });
      if (!reads.allowed) {
        providerReadsCapped.inc({ provider: OBIE_PROVIDER });
        return catchUp;
      }
      return step(await factsOf(await connection(authorization.bankId), authorization));
    },

    async cancelPayment(payment) {
      // OB v4.0 domestic payments have no consent revocation: an unused consent simply expires at
      // the bank. A payment already submitted to the bank cannot be called back.
      const authorization = await authorizationOf(payment.id);
      // callbackAt: the customer came back approved and the payment is being submitted (or was).
      // The callback checks for this cancel's claim after taking callbackAt, so one of the two
      // always sees the other: never a cancel answered while the bank makes the payment.
      if (authorization?.bankPaymentId || authorization?.callbackAt) {
        throw new AppError('PAYMENT_NOT_CANCELLABLE', 'The payment was already submitted to the bank');
      }
    },

    async hasPayment(payment) {
      // The consent row is written once the bank answered; without it the start never reached the
      // customer, and a new start under the same idempotency key finds any consent it made.
      return (await authorizationOf(payment.id)) !== null;
    },

    async completeAuthorization(callbackUrl, now) {
      const response = callbackUrl.searchParams.get('response');
      let state: unknown;
      try {
        state = response ? decodeJwt(response).state : undefined;
      } catch {
        state = undefined;
      }
      if (typeof state !== 'string') return { kind: 'refused', reason: 'no response from the bank' };
      const em = orm.em.fork();
      const request =
        (await em.findOne(ObieAuthorizationRequest, { state })) ?? (await previousBuildRequest(em, state));
      const authorization =
        request && (await em.findOne(ObieAuthorization, { paymentId: request.paymentId }));
      if (!request || !authorization) return { kind: 'refused', reason: 'unknown authorization' };
      const { nonce, codeVerifier } = request;
      const bank = await connection(authorization.bankId);
      let accessToken: string;
      try {
        accessToken = (await bank.exchange(callbackUrl, { state, nonce, codeVerifier })).access_token;
      } catch (error) {
        if (error instanceof AuthorizationResponseError) {
          // The bank's signed answer says the customer refused or cancelled: read the consent.
          return {
            kind: 'news',
            paymentId: authorization.paymentId,
            update: step(await factsOf(bank, authorization)),
          };
        }
        logger.warn({ err: error, paymentId: authorization.paymentId }, 'obie callback refused');
        return { kind: 'refused', reason: 'the bank answer could not be verified' };
      }
      // Only one return submits: a concurrent duplicate finds callback_at set.
      const taken = await em.nativeUpdate(
        ObieAuthorization,
        { paymentId: authorization.paymentId, callbackAt: null },
        { callbackAt: now },
      );
      if (taken === 0) return { kind: 'refused', reason: 'this authorization was already used' };
      // The core checks the payment may still go ahead (a cancel's claim, its 24 h, the merchant)
      // before it calls submit: a request opened before a cancel, the expiry or a suspension is
      // still good at the bank. The cancel reads callbackAt (cancelPayment), taken above first.
      const grant: ObieGrant = {
        accessToken,
        consentId: authorization.consentId,
        bankId: authorization.bankId,
      };
      return { kind: 'granted', paymentId: authorization.paymentId, grant };
    },

    async releaseGrant(paymentId) {
      // Taken by a return the core refused: the payment was never submitted (no bank payment id).
      await orm.em
        .fork()
        .nativeUpdate(ObieAuthorization, { paymentId, bankPaymentId: null }, { callbackAt: null });
    },

    async submit(record, grant, _now, options) {
      const { accessToken, consentId, bankId } = grant as ObieGrant;
      const submitted = await submitWithRetry(await connection(bankId), accessToken, record, consentId, {
        customerAddress: publicClientAddress(options?.customerAddress),
      });
      await orm.em
        .fork()
        .nativeUpdate(
          ObieAuthorization,
          { paymentId: record.id },
          { bankPaymentId: required({ status: 201, body: submitted }, 'DomesticPaymentId') },
        );
      return step(paymentFacts('COND', submitted));
    },

    async paymentOfNotification({ body: jwt }) {
      let lastError: unknown;
      for (const bankId of byBank.keys()) {
        try {
          const claims = await (await connection(bankId)).verifyNotification(jwt);
          // Each notification once: a replayed one (same jti, within its age) is refused.
          if (!(await firstSeen(bankId, String(claims.jti)))) {
            throw new Error('notification already received (its jti)');
          }
          const event = (
            claims.events as Record<string, { subject?: Record<string, unknown> }> | undefined
          )?.['urn:uk:org:openbanking:events:resource-update'];
          const bankPaymentId = event?.subject?.['http://openbanking.org.uk/rid'];
          if (typeof bankPaymentId !== 'string') return null;
          const found = await orm.em.fork().findOne(ObieAuthorization, { bankId, bankPaymentId });
          return found?.paymentId ?? null;
        } catch (error) {
          lastError = error;
        }
      }
      throw lastError ?? new Error('no obie connection');
    },

    async close() {
      for (const opening of connected.values()) await (await opening.catch(() => null))?.close();
    },
  };
}

/**
 * A field every such OB answer carries. A signed answer without it (a broken bank, a proxy's
 * page) is a failed call, never the string "undefined" stored as an id or a status.
 */
function required(answer: ApiAnswer, field: 'ConsentId' | 'DomesticPaymentId' | 'Status'): string {
  const value: unknown = answer.body.Data?.[field];
  if (typeof value === 'string' && value !== '') return value;
  throw new BankApiError(
    answer.status,
    undefined,
    `the bank answered ${answer.status} without Data.${field}`,
  );
}

// biome-ignore lint/suspicious/noExplicitAny: an OB payment body, read field by field.
function paymentFacts(consentStatus: string, body: Record<string, any>): ObieFacts {
  const reason = body.Data?.StatusReason?.[0];
  return {
    consentStatus,
    bankStatus: String(body.Data?.Status),
    bankReason: reason?.StatusReasonCode ?? null,
    bankReasonText: reason?.StatusReasonDescription ?? null,
  };
}

/**
 * Submits the payment with the customer's token. An answer lost on the way is asked again under
 * the same idempotency key while the token is valid: the bank answers with the payment it made
 * the first time, never a second one.
 */
async function submitWithRetry(
  bank: ObieConnection,
  token: string,
  record: PaymentRecord,
  consentId: string,
  { customerAddress }: { customerAddress: string | undefined },
): Promise<ApiAnswer['body']> {
  for (let attempt = 1; ; attempt++) {
    try {
      const answer = await bank.api('POST', '/domestic-payments', {
        token,
        body: paymentBody(record, consentId),
        idempotencyKey: paymentIdempotencyKey(record.id),
        customerAddress,
      });
      return answer.body;
    } catch (error) {
      if (!(error instanceof ProviderOutcomeUnknownError) || attempt >= 3) throw error;
    }
  }
}

/**
 * A request the previous build made during a rolling deploy: it kept the one request of a
 * payment on `obie_authorization` itself (Migration20261125200000_obie_authorization_requests
 * keeps those columns until a later release drops them, and this lookup with them).
 */
async function previousBuildRequest(
  em: ReturnType<Orm['em']['fork']>,
  state: string,
): Promise<Pick<ObieAuthorizationRequest, 'paymentId' | 'nonce' | 'codeVerifier'> | null> {
  const [row] = await em
    .getConnection()
    .execute<{ paymentId: string; nonce: string; codeVerifier: string }[]>(
      `select payment_id as "paymentId", nonce, code_verifier as "codeVerifier" from obie_authorization
      where state = ? and callback_at is null`,
      [state],
    );
  return row ?? null;
}
