import { PaymentMismatchError } from '../errors.ts';
import type { RequestSender } from '../request-sender.ts';
import { parseReturnUrl } from '../return-url.ts';
import type {
  CallOptions,
  CreatedPayment,
  CreatePaymentInput,
  ExportPaymentsFilters,
  FinalPayment,
  ListPaymentsFilters,
  NewCustomerLink,
  Payment,
  PaymentList,
} from '../types.ts';
import { type WaitForFinalStatusOptions, waitForFinalStatus } from '../wait-for-final-status.ts';
import { paymentIdSegment } from './path.ts';

/** Options of `payments.create`. */
export interface CreatePaymentOptions extends CallOptions {
  /**
   * Sent as the `Idempotency-Key` header. The same key with the same body returns the first
   * payment instead of creating another; with a different body the service answers 409
   * `IDEMPOTENCY_KEY_REUSED`. Default: a fresh `crypto.randomUUID()` per call, reused across
   * that call's retries. Pass your own (e.g. your order id) to be safe across process restarts.
   */
  idempotencyKey?: string | undefined;
}

/** Options of `payments.verifyReturn`. */
export interface VerifyReturnOptions extends CallOptions {
  /**
   * The `paymentId` stored with the order at creation, found from your own data (never from
   * the return URL). Required: without it any paid payment's id would pass.
   */
  expectedPaymentId: string;
}

/** The query parameters the list and the export share. */
const filterQuery = (filters: ExportPaymentsFilters) => ({
  status: filters.status,
  provider: filters.provider,
  currency: filters.currency,
  createdFrom: filters.createdFrom,
  createdTo: filters.createdTo,
  search: filters.search,
});

/** Page size `listAll` asks for when the filters name none: the largest the service allows. */
export const LIST_ALL_PAGE_SIZE = 100;

/** `client.payments`: create, read, list, refresh and cancel payments, and wait for their outcome. */
export class PaymentsResource {
  readonly #sender: RequestSender;

  /** @internal Built by `PaymentsClient`. */
  constructor(sender: RequestSender) {
    this.#sender = sender;
  }

  /**
   * Creates a payment (`POST /api/payments`) and returns its id, first status and the
   * `redirectUrl` to send the customer to. Retried on network failure, 5xx and 429, always with
   * the same idempotency key, so a retry never creates a second payment.
   */
  create(input: CreatePaymentInput, options: CreatePaymentOptions = {}): Promise<CreatedPayment> {
    const idempotencyKey = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    return this.#sender.send({
      method: 'POST',
      path: '/api/payments',
      body: input,
      headers: { 'idempotency-key': idempotencyKey },
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * Reads a payment with its full `statusHistory` (`GET /api/payments/{id}`). The service
   * catches the payment up with its provider first, so this is the read to poll.
   */
  async get(paymentId: string, options: CallOptions = {}): Promise<Payment> {
    return this.#sender.send({
      method: 'GET',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}`,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /** One page of the organization's payments, newest first (`GET /api/payments`). */
  list(filters: ListPaymentsFilters = {}, options: CallOptions = {}): Promise<PaymentList> {
    return this.#sender.send({
      method: 'GET',
      path: '/api/payments',
      query: { ...filterQuery(filters), limit: filters.limit, offset: filters.offset },
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * Every payment matching the filters as CSV (`GET /api/payments/export`), streamed: a header
   * row, then one row per payment, newest first. Pipe it to a file or read it chunk by chunk;
   * cancelling the stream (or `signal`) stops the service's reading. Failures before the first
   * byte reject with a `PaymentsApiError` like any call.
   *
   * ```ts
   * const csv = await client.payments.exportCsv({ createdFrom: '2026-11-01T00:00:00Z', createdTo: '2026-11-30T23:59:59Z' });
   * await pipeline(Readable.fromWeb(csv), createWriteStream('november.csv'));
   * ```
   */
  exportCsv(
    filters: ExportPaymentsFilters = {},
    options: CallOptions = {},
  ): Promise<ReadableStream<Uint8Array>> {
    return this.#sender.sendForStream({
      method: 'GET',
      path: '/api/payments/export',
      query: filterQuery(filters),
      headers: { accept: 'text/csv' },
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * A fresh customer link for an unfinished payment (`POST /api/payments/{id}/link`), with its
   * page's full lifetime; earlier links keep their own expiry. A finished payment fails with 409
   * `PAYMENT_FINISHED`. Retried like a read: a repeat only makes another link.
   */
  async newLink(paymentId: string, options: CallOptions = {}): Promise<NewCustomerLink> {
    return this.#sender.send({
      method: 'POST',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}/link`,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * Every payment matching the filters, page after page, for `for await`:
   *
   * ```ts
   * for await (const payment of client.payments.listAll({ status: 'COMPLETED' })) { ... }
   * ```
   *
   * Pages are fetched lazily (stop iterating and no more are requested), `limit` pages of
   * {@link LIST_ALL_PAGE_SIZE} by default, starting at `offset`. The list is newest first, so a
   * payment created during the walk shifts later pages by one; a payment already yielded is
   * not yielded again.
   */
  async *listAll(
    filters: ListPaymentsFilters = {},
    options: CallOptions = {},
  ): AsyncGenerator<Payment, void> {
    const limit = filters.limit ?? LIST_ALL_PAGE_SIZE;
    let offset = filters.offset ?? 0;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.list({ ...filters, limit, offset }, options);
      for (const payment of page.payments) {
        if (seen.has(payment.paymentId)) continue;
        seen.add(payment.paymentId);
        yield payment;
      }
      offset += page.payments.length;
      if (page.payments.length === 0 || offset >= page.total) return;
    }
  }

  /**
   * Asks the provider for the latest status now (`POST /api/payments/{id}/sync`). Unlike `get`,
   * a provider failure is reported (as a `PaymentsApiError`). Retried like a read.
   */
  async sync(paymentId: string, options: CallOptions = {}): Promise<Payment> {
    return this.#sender.send({
      method: 'POST',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}/sync`,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /**
   * Cancels an unfinished payment (`POST /api/payments/{id}/cancel`); resolves with it
   * `CANCELLED`. A finished one fails with 409 `PAYMENT_NOT_CANCELLABLE`. Never retried: a
   * repeat of a cancel that did land would answer 409 and hide the success.
   */
  async cancel(paymentId: string, options: CallOptions = {}): Promise<Payment> {
    return this.#sender.send({
      method: 'POST',
      path: `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}/cancel`,
      retrySafe: false,
      signal: options.signal,
    });
  }

  /**
   * Reads the payment until its status is final (`COMPLETED`, `FAILED`, `CANCELLED`, `EXPIRED`)
   * and resolves with it. When the service waits on reads (`Prefer: wait`, answered with
   * `Preference-Applied`), each read after the first is held by the service until the payment
   * changes: one read per change, seen the moment it happens. Otherwise (any server that only
   * implements the spec) the spec's client guidance: a read at once, then every 3 s until 60 s
   * have passed (t = 3, 6, ..., 60 s), then every 60 s (t = 120, 180, ... s).
   * `onUpdate` sees each status change; `signal` stops the wait; after `timeoutMs`
   * (default 15 min) it rejects with `PaymentsWaitTimeoutError`.
   */
  async waitForFinalStatus(
    paymentId: string,
    options: WaitForFinalStatusOptions = {},
  ): Promise<FinalPayment> {
    const path = `/api/payments/${paymentIdSegment(paymentId, 'paymentId')}`;
    return waitForFinalStatus(async (signal, condition) => {
      const { data, headers } = await this.#sender.sendForAnswer<Payment>({
        method: 'GET',
        path,
        retrySafe: true,
        signal,
        ...(condition
          ? {
              headers: { 'if-none-match': condition.etag, prefer: `wait=${condition.waitSeconds}` },
              // The server holds the answer for up to the wait: the client's limit comes on top.
              timeoutMs: this.#sender.timeoutMs + condition.waitSeconds * 1000,
            }
          : {}),
      });
      return {
        payment: data,
        etag: headers.get('etag') ?? undefined,
        waitHonoured: headers.has('preference-applied'),
      };
    }, options);
  }

  /**
   * Handles the customer's return to your `redirectUrl`, bound to the order: `expectedPaymentId`
   * is the `paymentId` you stored with the order when you created the payment (find the order
   * from your own data, e.g. `?order=42` in your return URL, or the session). When the URL's
   * `paymentId` is another one, it rejects with {@link PaymentMismatchError} and reads nothing:
   * otherwise a customer could bring back a cheap paid payment's id on an expensive order's
   * return. A malformed URL (no `paymentId`, two, an empty or path-like one) is a `TypeError`.
   * The `status` in the URL is ignored: anyone can type it. Fulfil the order only on the
   * returned payment's `status` (`COMPLETED`), or follow up with `waitForFinalStatus`.
   */
  async verifyReturn(returnUrl: string | URL, options: VerifyReturnOptions): Promise<Payment> {
    // Checked at run time too: plain JavaScript callers get no compile error.
    const expectedPaymentId: unknown = options?.expectedPaymentId;
    if (expectedPaymentId === undefined) {
      throw new TypeError(
        'verifyReturn needs { expectedPaymentId }: the paymentId stored with the order when the payment was created',
      );
    }
    paymentIdSegment(expectedPaymentId, 'expectedPaymentId');
    const { paymentId } = parseReturnUrl(returnUrl);
    if (paymentId !== expectedPaymentId)
      throw new PaymentMismatchError(expectedPaymentId as string, paymentId);
    return this.get(paymentId, { signal: options.signal });
  }
}
