import { randomBytes } from 'node:crypto';
import net from 'node:net';
import {
  AppError,
  catchUp,
  NEXTGENPSD2_PROVIDER,
  type Nextgenpsd2Facts,
  nextgenpsd2Report,
  nextgenpsd2Target,
  type PaymentRecord,
  reportFromBank,
} from '@pis/shared';
import { z } from 'zod';
import type { Orm } from '../../db/orm.ts';
import { bankLink, type LinkConfig } from '../../links/customer-links.ts';
import type { Logger } from '../../logger.ts';
import { publicClientAddress } from '../../rate-limits/client-address.ts';
import { consumeRateLimit } from '../../rate-limits/rate-limit-store.ts';
import type { CallbackOutcome, PaymentProvider, StatusUpdate } from '../payment-provider.ts';
import { ProviderOutcomeUnknownError } from '../payment-provider.ts';
import { type Nextgenpsd2ConnectionConfig, readXs2aClient } from './nextgenpsd2-client.ts';
import {
  connectXs2a,
  Xs2aApiError,
  Xs2aBadAnswerError,
  type Xs2aConnection,
} from './nextgenpsd2-connection.ts';

/**
 * The `nextgenpsd2` provider: Berlin Group NextGenPSD2 1.3.11 single SEPA credit transfers with
 * the redirect approach, one connection per ASPSP (bank) from configuration.
 *
 * Unlike UK Open Banking there is no consent and no submit: `POST /v1/payments/{product}` is the
 * payment, waiting (`RCVD`) for the customer's SCA at the bank's page (`_links.scaRedirect`), and
 * after it the bank executes it by itself. So the start makes the payment at the bank; our link
 * (`/providers/nextgenpsd2/authorize/:token`) sends the customer on to the bank's page; their
 * return (`TPP-Redirect-URI` / `TPP-Nok-Redirect-URI`, both ours with a random `state`) is only a
 * cue to read the status, never news in itself; and the status decides (shared/providers/nextgenpsd2.ts).
 *
 * It keeps its per-payment facts in `nextgenpsd2_payment` (plain SQL, no entity) and never writes
 * payments.
 *
 * Idempotency: XS2A has none for a POST (X-Request-ID identifies a request, it does not make a
 * repeat find the first one), so the row is written before the call, with the `state` the bank is
 * given, and completed with the bank's payment id after it. A crash or a lost answer between the
 * two leaves a row without a bank payment id: `hasPayment` says no, the reconcile job drops the
 * start, and the customer may start again. What the bank may have made then can never be
 * authorised: its `scaRedirect` was never stored nor given to anyone, and its `state` dies with
 * the next start (a new one replaces it); it stays RCVD at the bank until the bank forgets it,
 * and no money moves.
 */

/** The product: the plain SEPA credit transfer (see the report: instant is a later choice). */
const PRODUCT = 'sepa-credit-transfers';
/**
 * `PSU-IP-Address`, required on the initiation: the customer's address when the start is their
 * request (a bank chosen on our page). An API_ONLY payment is made by the merchant's server before
 * any customer is known; then, as the document says, "the TPP shall use the IP Address used by the
 * TPP when submitting this request": the address this process reaches the bank from
 * (`addressTowards`). Only when even that cannot be learnt, an unspecified address.
 */
const PSU_IP_UNKNOWN = '0.0.0.0';
/** At most OPENS_PER_WINDOW opens of one payment's link in OPENS_WINDOW_SECONDS, from any addresses. */
const OPENS_PER_WINDOW = 10;
const OPENS_WINDOW_SECONDS = 60;
/**
 * Reads of one payment at the bank (every GET or sync of an unfinished payment asks it): at most
 * this many in READS_WINDOW_SECONDS, whoever reads. Past it the read answers what we know.
 */
const READS_PER_WINDOW = 30;
const READS_WINDOW_SECONDS = 10;
/** `state`: 128 random bits, base64url. */
const STATE = /^[A-Za-z0-9_-]{22}$/;

const TRANSACTION_STATUS = z.string().regex(/^[A-Z]{4}$/, 'a 4-letter ISO 20022 status');
const Href = z.object({ href: z.string().max(2_000) });
/** `paymentInitationRequestResponse-201`, the fields read. */
const InitiationAnswer = z.object({
  transactionStatus: TRANSACTION_STATUS,
  paymentId: z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/, 'an id usable in a path'),
  _links: z.object({ scaRedirect: Href }),
});
/** `paymentInitiationStatusResponse-200_json`, the fields read. */
const StatusAnswer = z.object({
  transactionStatus: TRANSACTION_STATUS,
  fundsAvailable: z.boolean().optional(),
  psuMessage: z.string().max(500).optional(),
});
/** `authorisations`. */
const AuthorisationsAnswer = z.object({
  authorisationIds: z.array(z.string().regex(/^[A-Za-z0-9._~-]{1,100}$/)).max(20),
});
/** `scaStatusResponse`, the field read. */
const ScaStatusAnswer = z.object({ scaStatus: z.string().regex(/^[A-Za-z]{1,35}$/) });

/** A row of `nextgenpsd2_payment`. */
type Row = {
  paymentId: string;
  bankId: string;
  product: string;
  bankPaymentId: string | null;
  scaRedirect: string | null;
  state: string;
  callbackAt: Date | null;
  createdAt: Date;
};

const COLUMNS = `payment_id as "paymentId", bank_id as "bankId", product, bank_payment_id as "bankPaymentId",
  sca_redirect as "scaRedirect", state, callback_at as "callbackAt", created_at as "createdAt"`;

export function createNextgenpsd2Provider(
  connections: readonly Nextgenpsd2ConnectionConfig[],
  /** Signs the customer's link (ours, at /providers/nextgenpsd2/authorize/:token). */
  links: LinkConfig,
  orm: Orm,
  logger: Logger,
  /** Our public origin: the bank sends the customer back to `<it>/providers/nextgenpsd2/callback`. */
  publicBaseUrl: string,
): PaymentProvider {
  const byBank = new Map(connections.map((connection) => [connection.bankId, connection]));
  const connected = new Map<
    string,
    { connection: Xs2aConnection; pages: (url: URL) => boolean; ownAddress: () => Promise<string> }
  >();
  const callbackUrl = `${publicBaseUrl.replace(/\/+$/, '')}/providers/${NEXTGENPSD2_PROVIDER}/callback`;

  /** Connects on first use (the bank may write its client file while we start). */
  function bank(bankId: string) {
    const known = connected.get(bankId);
    if (known) return known;
    const settings = byBank.get(bankId);
    if (!settings)
      throw new AppError(
        'VALIDATION_FAILED',
        `Bank ${bankId} is not reachable through ${NEXTGENPSD2_PROVIDER}`,
      );
    const client = readXs2aClient(settings.clientFile);
    let ownAddress: Promise<string> | undefined;
    const opened = {
      connection: connectXs2a(client),
      // Learnt once; a failure (no route, DNS down) is not kept: the next start asks again.
      ownAddress: () => {
        ownAddress ??= addressTowards(new URL(client.baseUrl)).catch(() => {
          ownAddress = undefined;
          return PSU_IP_UNKNOWN;
        });
        return ownAddress;
      },
      pages: scaPagesCheck(settings.scaRedirectOrigins ?? client.scaRedirectOrigins, new URL(client.baseUrl)),
    };
    connected.set(bankId, opened);
    return opened;
  }

  const bankOf = (payment: Pick<PaymentRecord, 'bankId'>): string => {
    if (payment.bankId) return payment.bankId;
    const [only, ...others] = byBank.keys();
    if (!only || others.length > 0)
      throw new AppError('VALIDATION_FAILED', `bankId is required for provider ${NEXTGENPSD2_PROVIDER}`);
    return only;
  };

  const sql = () => orm.em.fork().getConnection();
  const rowOf = async (paymentId: string): Promise<Row | undefined> =>
    (
      await sql().execute<Row[]>(`select ${COLUMNS} from nextgenpsd2_payment where payment_id = ?`, [
        paymentId,
      ])
    )[0];

  const paymentPath = (row: Pick<Row, 'product' | 'bankPaymentId'>) =>
    `/v1/payments/${row.product}/${encodeURIComponent(row.bankPaymentId ?? '')}`;

  /**
   * Where the payment stands at its bank: the status, and for a rejection the authorisation's
   * SCA status (`failed` is the customer's refusal; no funds is `fundsAvailable: false`).
   */
  async function factsOf(row: Row): Promise<Nextgenpsd2Facts> {
    const { connection } = bank(row.bankId);
    const status = (await connection.call('GET', `${paymentPath(row)}/status`, { answer: StatusAnswer }))
      .body;
    const facts: Nextgenpsd2Facts = {
      transactionStatus: status.transactionStatus,
      fundsAvailable: status.fundsAvailable ?? null,
      psuMessage: status.psuMessage ?? null,
    };
    if (status.transactionStatus === 'RJCT' && status.fundsAvailable !== false) {
      const { authorisationIds } = (
        await connection.call('GET', `${paymentPath(row)}/authorisations`, { answer: AuthorisationsAnswer })
      ).body;
      const [authorisationId] = authorisationIds;
      if (authorisationId) {
        facts.scaStatus = (
          await connection.call('GET', `${paymentPath(row)}/authorisations/${authorisationId}`, {
            answer: ScaStatusAnswer,
          })
        ).body.scaStatus;
      }
    }
    // A status the table does not know moves nothing: it is a bad answer, not news.
    if (!nextgenpsd2Target(facts))
      throw new Xs2aBadAnswerError(`the bank reported a status we do not know: ${facts.transactionStatus}`);
    return facts;
  }

  /** The bank's news as a lifecycle step (applied to the freshly locked payment by the core). */
  const stepOf =
    (facts: Nextgenpsd2Facts): StatusUpdate =>
    (payment, now) =>
      reportFromBank(payment, nextgenpsd2Report(facts), now);

  /** Where the payment stands as a step; a bad answer is logged with the payment and thrown (nothing moves). */
  async function updateOf(row: Row): Promise<StatusUpdate> {
    try {
      return stepOf(await factsOf(row));
    } catch (error) {
      if (error instanceof Xs2aBadAnswerError)
        logger.warn({ err: error, paymentId: row.paymentId, bankId: row.bankId }, 'nextgenpsd2 bad answer');
      throw error;
    }
  }

  /** Best effort: deletes at the bank a payment we will not use (a bad answer to our start). */
  async function abandon(
    connection: Xs2aConnection,
    product: string,
    bankPaymentId: string,
    paymentId: string,
  ) {
    try {
      await connection.call('DELETE', paymentPath({ product, bankPaymentId }));
    } catch (error) {
      logger.warn(
        { err: error, paymentId, bankPaymentId },
        'nextgenpsd2 could not delete an unusable bank payment',
      );
    }
  }

  return {
    code: NEXTGENPSD2_PROVIDER,
    keepsPayments: true,
    pollsFromStart: true,
    bankIds: () => [...byBank.keys()],

    async startPayment(payment, now, options) {
      const bankId = bankOf(payment);
      const body = initiationBody(payment);
      const { connection, pages, ownAddress } = bank(bankId);
      const link = () => bankLink(links, NEXTGENPSD2_PROVIDER, payment.id, now, options?.linkNotAfter);

      const earlier = await rowOf(payment.id);
      if (earlier?.bankPaymentId && !earlier.callbackAt && earlier.bankId === bankId) {
        // A start repeated (a reconciled claim): the bank payment made the first time still waits.
        return { customerUrl: link().url };
      }
      if (earlier?.bankPaymentId && earlier.bankId !== bankId) {
        // Another bank now: the first bank's payment is withdrawn before a second one exists.
        await abandon(bank(earlier.bankId).connection, earlier.product, earlier.bankPaymentId, payment.id);
      }

      // The row first, with the state the bank is given (see the idempotency note above).
      const state = randomBytes(16).toString('base64url');
      await sql().execute(
        `insert into nextgenpsd2_payment (payment_id, bank_id, product, state, created_at)
         values (?, ?, ?, ?, ?)
         on conflict (payment_id) do update set bank_id = excluded.bank_id, product = excluded.product,
           state = excluded.state, created_at = excluded.created_at,
           bank_payment_id = null, sca_redirect = null, callback_at = null`,
        [payment.id, bankId, PRODUCT, state, now],
      );
      const redirect = `${callbackUrl}?state=${state}`;
      let answer: z.infer<typeof InitiationAnswer>;
      try {
        answer = (
          await connection.call('POST', `/v1/payments/${PRODUCT}`, {
            body,
            headers: {
              // Not the customer's (a proxy's, ours): the bank's fraud checks are better served by ours.
              'psu-ip-address': publicClientAddress(options?.customerAddress) ?? (await ownAddress()),
              'tpp-redirect-uri': redirect,
              'tpp-nok-redirect-uri': `${redirect}&nok=1`,
              'tpp-redirect-preferred': 'true',
            },
            answer: InitiationAnswer,
          })
        ).body;
      } catch (error) {
        // Unknown outcome: the row stays (hasPayment says no until a bank id is known). A refusal:
        // nothing was made, and the core deletes the payment.
        if (!(error instanceof ProviderOutcomeUnknownError)) {
          await forgetStart(payment.id, state);
          logger.warn({ err: error, paymentId: payment.id, bankId }, 'nextgenpsd2 start refused');
          if (error instanceof Xs2aApiError && error.status === 400 && error.has('FORMAT_ERROR')) {
            const detail = error.tppMessages.find((message) => message.code === 'FORMAT_ERROR');
            throw new AppError(
              'VALIDATION_FAILED',
              `The bank refused the payment${detail?.path ? ` (${detail.path.slice(0, 100)})` : ''}${detail?.text ? `: ${detail.text.slice(0, 200)}` : ''}`,
            );
          }
        }
        throw error;
      }
      const scaRedirect = URL.parse(answer._links.scaRedirect.href);
      if (!scaRedirect || !pages(scaRedirect)) {
        // The bank's word sends our customer elsewhere: never handed out.
        logger.warn(
          { paymentId: payment.id, bankId, redirectOrigin: scaRedirect?.origin ?? 'not a URL' },
          'nextgenpsd2 scaRedirect not on the bank pages origin: payment abandoned',
        );
        await abandon(connection, PRODUCT, answer.paymentId, payment.id);
        await forgetStart(payment.id, state);
        throw new Xs2aBadAnswerError("the bank's SCA page is not on its configured origin");
      }
      const completed = await sql().execute<{ paymentId: string }[]>(
        `update nextgenpsd2_payment set bank_payment_id = ?, sca_redirect = ?
         where payment_id = ? and state = ? returning payment_id as "paymentId"`,
        [answer.paymentId, scaRedirect.href, payment.id, state],
      );
      if (completed.length === 0) {
        // Another start of the same payment replaced ours meanwhile (the core's claim prevents it).
        await abandon(connection, PRODUCT, answer.paymentId, payment.id);
        throw new Error('the start was replaced by another one');
      }
      return { customerUrl: link().url };
    },

    async authorize(payment, now) {
      const row = await rowOf(payment.id);
      if (!row?.bankPaymentId || !row.scaRedirect || row.callbackAt) return null;
      // Checked again as it is handed out: one stored under an earlier rule or configuration.
      const stored = URL.parse(row.scaRedirect);
      if (!stored || !bank(row.bankId).pages(stored)) {
        logger.warn(
          { paymentId: payment.id },
          'nextgenpsd2 stored scaRedirect off the bank pages origin: not opened',
        );
        return null;
      }
      const known = payment.providerStatus?.transaction;
      if (known && known !== 'RCVD') return null;
      // Each open is a signed call to the bank: bounded per payment, whoever opens it.
      const opens = await consumeRateLimit(orm.em.fork(), {
        key: `${NEXTGENPSD2_PROVIDER}-open:${payment.id}`,
        limit: OPENS_PER_WINDOW,
        windowSeconds: OPENS_WINDOW_SECONDS,
        now,
      });
      if (!opens.allowed)
        throw new AppError(
          'RATE_LIMITED',
          'This link was opened too many times in the last minute. Please try again in a minute.',
        );
      try {
        const { body } = await bank(row.bankId).connection.call('GET', `${paymentPath(row)}/status`, {
          answer: StatusAnswer,
        });
        if (body.transactionStatus !== 'RCVD') return null;
      } catch (error) {
        // The bank's page says itself whether there is anything left to approve.
        logger.warn({ err: error, paymentId: payment.id }, 'nextgenpsd2 status before the bank page failed');
      }
      return row.scaRedirect;
    },

    async completeAuthorization(url): Promise<CallbackOutcome> {
      const state = url.searchParams.get('state');
      if (!state || !STATE.test(state)) return { kind: 'refused', reason: 'no state' };
      // Taken once: a replay (or the second of two tabs) finds callback_at set.
      const [taken] = await sql().execute<Row[]>(
        `update nextgenpsd2_payment set callback_at = now()
         where state = ? and callback_at is null and bank_payment_id is not null
         returning ${COLUMNS}`,
        [state],
      );
      if (!taken) {
        const [known] = await sql().execute<{ paymentId: string }[]>(
          `select payment_id as "paymentId" from nextgenpsd2_payment where state = ?`,
          [state],
        );
        if (known) logger.warn({ paymentId: known.paymentId }, 'nextgenpsd2 callback replayed or too early');
        return {
          kind: 'refused',
          reason: known ? 'this authorization was already used' : 'unknown authorization',
        };
      }
      // `nok` is the browser's word; the bank's status decides.
      const release = () =>
        sql().execute(
          'update nextgenpsd2_payment set callback_at = null where payment_id = ? and state = ?',
          [taken.paymentId, state],
        );
      let facts: Nextgenpsd2Facts;
      try {
        facts = await factsOf(taken);
      } catch (error) {
        // Nothing learnt: the return is not used up (the reads decide later).
        logger.warn({ err: error, paymentId: taken.paymentId }, 'nextgenpsd2 status at the callback failed');
        await release();
        return { kind: 'news', paymentId: taken.paymentId, update: catchUp };
      }
      // Nothing decided at the bank yet (back without deciding, or a forged return): the customer's
      // link stays good. So a taken callback always means the bank had moved past RCVD.
      if (facts.transactionStatus === 'RCVD') await release();
      return { kind: 'news', paymentId: taken.paymentId, update: stepOf(facts) };
    },

    async readStatus(payment) {
      const row = await rowOf(payment.id);
      if (!row?.bankPaymentId) return catchUp;
      const reads = await consumeRateLimit(orm.em.fork(), {
        key: `${NEXTGENPSD2_PROVIDER}-read:${payment.id}`,
        limit: READS_PER_WINDOW,
        windowSeconds: READS_WINDOW_SECONDS,
      });
      if (!reads.allowed) {
        logger.debug({ paymentId: payment.id }, 'nextgenpsd2 reads capped: answered what is known');
        return catchUp;
      }
      return updateOf(row);
    },

    async cancelPayment(payment) {
      const row = await rowOf(payment.id);
      // Nothing at the bank that anyone can approve (see the idempotency note).
      if (!row?.bankPaymentId) return;
      if (row.callbackAt)
        throw new AppError(
          'PAYMENT_NOT_CANCELLABLE',
          'The customer already authorised the payment at the bank',
        );
      const { connection } = bank(row.bankId);
      let answer: { status: number };
      try {
        answer = await connection.call('DELETE', paymentPath(row));
      } catch (error) {
        if (!(error instanceof Xs2aApiError)) throw error;
        // The bank does not know the payment as ours: after a TPP certificate change it could
        // still be approvable there, so "gone" is never assumed. Cancelled only if its status says
        // CANC; else the outcome stays unknown (a merchant's cancel is reconciled, an expiry asked
        // again) and the operator is told.
        if (error.has('RESOURCE_UNKNOWN') && (error.status === 403 || error.status === 404)) {
          const facts = await factsOf(row).catch(() => null);
          if (facts?.transactionStatus === 'CANC') return;
          logger.error(
            { paymentId: payment.id, bankId: row.bankId },
            'nextgenpsd2 cancel: the bank does not know the payment as ours (a changed TPP certificate?)',
          );
          throw new ProviderOutcomeUnknownError('the bank does not know the payment as ours');
        }
        if (error.status === 405 || error.has('CANCELLATION_INVALID')) {
          const facts = await factsOf(row);
          if (facts.transactionStatus === 'CANC') return;
          throw new AppError('PAYMENT_NOT_CANCELLABLE', 'The payment was already authorised at the bank');
        }
        throw error;
      }
      // 202: the bank wants the customer to authorise the cancellation (not offered here).
      if (answer.status !== 204 && answer.status !== 200)
        throw new AppError(
          'PAYMENT_NOT_CANCELLABLE',
          'The bank needs the customer to authorise the cancellation',
        );
    },

    async hasPayment(payment) {
      return Boolean((await rowOf(payment.id))?.bankPaymentId);
    },

    async close() {
      for (const { connection } of connected.values()) await connection.close().catch(() => {});
      connected.clear();
    },
  };

  /** A start the bank refused: its row goes (only if it is still this start's). */
  async function forgetStart(paymentId: string, state: string) {
    await sql().execute(
      `delete from nextgenpsd2_payment where payment_id = ? and state = ? and bank_payment_id is null`,
      [paymentId, state],
    );
  }
}

/**
 * The initiation body (`paymentInitiation_json`) made from our payment: EUR to the payee's IBAN,
 * the reference as the remittance information. No `debtorAccount`: the customer chooses the
 * account at the bank. A payment that cannot be one (the create rules keep such payments from
 * this provider) is refused before the bank hears of it.
 */
export function initiationBody(payment: PaymentRecord) {
  const iban = payment.toAccount.iban?.replace(/\s+/g, '').toUpperCase();
  if (!iban) throw new AppError('VALIDATION_FAILED', "A SEPA credit transfer needs the payee's IBAN");
  if (payment.amount.currency !== 'EUR')
    throw new AppError('VALIDATION_FAILED', 'A SEPA credit transfer is in EUR');
  return {
    endToEndIdentification: payment.reference.endToEndId.slice(0, 35),
    instructedAmount: { currency: 'EUR', amount: xs2aAmount(payment.amount.value) },
    creditorAccount: { iban },
    creditorName: payment.toAccount.accountName.slice(0, 70),
    remittanceInformationUnstructured: payment.reference.reference.slice(0, 140),
  };
}

/** `10.5000` -> `10.50`: at most 2 decimals (more that are not zeros cannot be a SEPA amount). */
function xs2aAmount(value: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  const decimals = (match?.[2] ?? '').replace(/0+$/, '');
  if (!match || decimals.length > 2)
    throw new AppError('VALIDATION_FAILED', 'A SEPA credit transfer amount has at most 2 decimals');
  return `${match[1]}.${decimals.padEnd(2, '0')}`;
}

/**
 * Whether a `scaRedirect` may be sent to our customer: on one of the configured origins (the
 * connection's, else the client file's), else on the API's own origin (scheme, host and port:
 * another port of the bank's host is another server). https, or http on a loopback host (the
 * sandbox). No user information: the bank's answer is not trusted to pick the page.
 */
export function scaPagesCheck(origins: readonly string[] | undefined, apiBase: URL): (url: URL) => boolean {
  const loopback = (host: string) => ['localhost', '127.0.0.1', '[::1]'].includes(host);
  const allowed = origins?.length ? origins.map((origin) => new URL(origin).origin) : [apiBase.origin];
  return (url) => {
    if (url.username || url.password) return false;
    if (!(url.protocol === 'https:' || (url.protocol === 'http:' && loopback(url.hostname)))) return false;
    return allowed.includes(url.origin);
  };
}

/**
 * The local address this host sends from to reach `url`'s host: a UDP socket's connect only picks
 * the route (no packet is sent). Behind NAT the bank sees another address; this is the best the
 * process itself knows.
 */
async function addressTowards(url: URL): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Loaded when first needed (an API_ONLY start): half a megabyte a process need not hold idle.
  const { default: dgram } = await import('node:dgram');
  const socket = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('no route to the bank learnt in time')),
        ROUTE_TIMEOUT_MS,
      );
      const settle = (error?: Error | null) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      socket.once('error', settle);
      socket.connect(Number(url.port || 443), host, settle);
    });
    const { address } = socket.address();
    // An unbound socket's address (no route was found) is not ours to give.
    if (address === '0.0.0.0' || address === '::') throw new Error('no local address towards the bank');
    return address;
  } finally {
    socket.close();
  }
}

/** How long the route (and its DNS lookup) to the bank may take to learn. */
const ROUTE_TIMEOUT_MS = 5_000;
