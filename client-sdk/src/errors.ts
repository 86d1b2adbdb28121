import type { Payment } from './types.ts';

/** One problem with one field, as the service reports it on `VALIDATION_FAILED`. */
export interface PaymentsErrorDetail {
  field: string;
  message: string;
}

/** Codes the client itself gives to failures that never got an answer from the service. */
export type ClientErrorCode =
  | 'NETWORK_ERROR'
  | 'TIMEOUT'
  | 'INVALID_RESPONSE'
  | 'WAIT_TIMEOUT'
  | 'UNEXPECTED_REDIRECT';

interface PaymentsApiErrorInit {
  status: number;
  message: string;
  code?: string | undefined;
  details?: PaymentsErrorDetail[] | undefined;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * Every failed call to the service is a `PaymentsApiError` (or one of its subclasses), so one
 * `catch (e) { if (e instanceof PaymentsApiError) ... }` covers them all. What is refused before
 * any request is not: a malformed argument is a `TypeError`, a return URL naming another payment
 * a {@link PaymentMismatchError}.
 *
 * - `status`: the HTTP status of the answer, or `0` when there was no answer (network, timeout).
 * - `code`: the service's stable code (`VALIDATION_FAILED`, `PAYMENT_NOT_CANCELLABLE`, ...) when it
 *   gave one; the spec gives none for 401, 403 (plain) and 404. Client-side failures carry a
 *   {@link ClientErrorCode}.
 * - `details`: one entry per invalid field on `VALIDATION_FAILED`.
 */
export class PaymentsApiError extends Error {
  /** HTTP status of the failed answer (a 3xx is one: redirects are never followed); `0` when no answer arrived. */
  readonly status: number;
  /** The service's stable error code, or a {@link ClientErrorCode}; absent where the service gives none. */
  readonly code: string | undefined;
  /** Per-field problems (on `VALIDATION_FAILED`). */
  readonly details: PaymentsErrorDetail[] | undefined;
  /** How long the service asked us to wait (`Retry-After`), if it did. */
  readonly retryAfterMs: number | undefined;

  constructor(init: PaymentsApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PaymentsApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** The request never got an HTTP answer (DNS, refused connection, reset, CORS, ...). `status` is 0. */
export class PaymentsConnectionError extends PaymentsApiError {
  constructor(message: string, cause?: unknown, code: ClientErrorCode = 'NETWORK_ERROR') {
    super({ status: 0, code, message, cause });
    this.name = 'PaymentsConnectionError';
  }
}

/** No answer within the client's `timeoutMs`. A kind of connection error: retried the same way. */
export class PaymentsTimeoutError extends PaymentsConnectionError {
  constructor(timeoutMs: number) {
    super(`Request timed out after ${timeoutMs} ms`, undefined, 'TIMEOUT');
    this.name = 'PaymentsTimeoutError';
  }
}

/**
 * `waitForFinalStatus` gave up before the payment finished. `payment` is the last state read
 * (undefined if no read succeeded); the payment itself is still moving on the service.
 */
export class PaymentsWaitTimeoutError extends PaymentsApiError {
  /** The last payment read before giving up. */
  readonly payment: Payment | undefined;

  constructor(timeoutMs: number, payment: Payment | undefined, cause?: unknown) {
    super({
      status: 0,
      code: 'WAIT_TIMEOUT',
      message: `Payment did not reach a final status within ${timeoutMs} ms`,
      cause,
    });
    this.name = 'PaymentsWaitTimeoutError';
    this.payment = payment;
  }
}

/**
 * `verifyReturn` was given a return URL whose `paymentId` is not the one stored with the order.
 * Someone swapped the id (say, a cheap paid order's id on an expensive order's return URL);
 * nothing was read from the service. Treat the order as unpaid and the request as suspect.
 */
export class PaymentMismatchError extends Error {
  /** The id the merchant stored with the order (`expectedPaymentId`). */
  readonly expectedPaymentId: string;
  /** The id the return URL carried. */
  readonly returnedPaymentId: string;

  constructor(expectedPaymentId: string, returnedPaymentId: string) {
    super(
      `The return URL names payment ${returnedPaymentId}, not this order's payment ${expectedPaymentId}; nothing was read`,
    );
    this.name = 'PaymentMismatchError';
    this.expectedPaymentId = expectedPaymentId;
    this.returnedPaymentId = returnedPaymentId;
  }
}
