import type { Change, PaymentRecord } from '@pis/shared';

/**
 * What the service needs from a provider (a bank connection). The Mock bank is one adapter; a
 * real provider adds another: its folder under `providers/`, its line in `default-providers.ts`,
 * its descriptor in `shared/src/providers/`, its configuration and its tables. No router or
 * domain function changes.
 *
 * Adapters do their I/O here and never write payments, nor import `payments/`: the domain claims
 * each call under the payment's row lock first and applies what they report through the same
 * lock (payments/provider-claims.ts). The routes at our origin every provider shares (our link,
 * the bank's return, the bank's push) are the core's (payments/provider-callbacks.ts); an
 * adapter only says which payment and what news.
 *
 * Failures: throw `ProviderOutcomeUnknownError` when the request may have reached the bank and
 * the answer is not known (a timeout, a connection lost after sending); the payment then waits
 * for the reconcile job. Any other error means the bank did not act on it.
 */
export interface PaymentProvider {
  /** The `provider` code merchants use. */
  readonly code: string;
  /**
   * The provider keeps state per payment (a real bank: a consent once started). An API_ONLY
   * create then stores the payment before calling it, so a crash in between never leaves
   * something at the bank with no payment here (payments/create-at-real-provider.ts). The Mock
   * bank keeps nothing and saves the create those round trips.
   */
  readonly keepsPayments?: boolean;
  /**
   * The bank tells us nothing by itself (nextgenpsd2): the core polls the payment from its
   * start, not only once the customer is back through our callback (they may close the tab at
   * the bank). Its expiry is the bank's to confirm (the descriptor's `expiryToldToBank`).
   */
  readonly pollsFromStart?: boolean;
  /** Hands the payment to the provider; the answer is the page the customer authorises on. */
  startPayment(payment: PaymentRecord, now: Date, options?: StartOptions): Promise<StartedPayment>;
  /**
   * Asks the provider where the payment stands. The answer is a pure step applied to the
   * freshly locked record, so news read outside the lock can never overwrite a newer state.
   */
  readStatus(payment: PaymentRecord, now: Date): Promise<StatusUpdate>;
  /** Tells the provider the merchant cancelled the payment. Must be safe to repeat (the reconcile job does). */
  cancelPayment(payment: PaymentRecord, now: Date): Promise<void>;
  /** For the reconcile job after a start whose answer never came: did the start reach the provider? */
  hasPayment(payment: PaymentRecord, now: Date): Promise<boolean>;

  // What a provider whose customer approves at the bank adds (the descriptor's banks are theirs).
  /** The bank ids this process has a connection to (`GET /banks` lists only those). */
  bankIds?(): string[];
  /**
   * The customer opened our link (`/providers/:code/authorize/:token`) of a payment that still
   * waits for them: the bank's page to send them to now. Null when there is nothing to authorise
   * there any more (the customer already came back, or the payment never reached the bank).
   * Throws an AppError RATE_LIMITED when the link was opened too often.
   */
  authorize?(payment: PaymentRecord, now: Date): Promise<string | null>;
  /**
   * The customer back at `/providers/:code/callback` (the full URL, as the bank sent them):
   * which payment, and either the grant to submit with (the core checks first that the payment
   * may still go ahead, then calls `submit`) or the news the answer carried (a refusal).
   * A forged, unknown or replayed return is `refused`; nothing is changed then.
   */
  completeAuthorization?(callbackUrl: URL, now: Date): Promise<CallbackOutcome>;
  /** Submits an approved payment with the grant `completeAuthorization` gave: what the bank answered. */
  submit?(payment: PaymentRecord, grant: unknown, now: Date, options?: SubmitOptions): Promise<StatusUpdate>;
  /** The core refused a granted return (cancelled, expired, merchant suspended): nothing was submitted. */
  releaseGrant?(paymentId: string): Promise<void>;
  /**
   * The bank's push at `POST /api/providers/:code/event-notifications` (its raw body): the
   * payment to read now, null for news about nothing of ours; throws when it is not genuine.
   */
  paymentOfNotification?(notification: ProviderNotification): Promise<string | null>;
  /** Closes its connections (the process is stopping). */
  close?(): Promise<void>;
}

/** A bank's push as it arrived. */
export interface ProviderNotification {
  body: string;
  contentType: string | undefined;
}

/** What the customer's return through our callback decided (or why it decided nothing). */
export type CallbackOutcome =
  | { kind: 'granted'; paymentId: string; grant: unknown }
  | { kind: 'news'; paymentId: string; update: StatusUpdate }
  | { kind: 'refused'; reason: string };

export interface StartOptions {
  /** When the customer's link that led here expires: a link the provider gives must not outlive it. */
  linkNotAfter?: Date | undefined;
  /**
   * The customer's IP address when the start is their own request (a bank chosen on our page);
   * absent when the merchant's server starts the payment (API_ONLY).
   */
  customerAddress?: string | undefined;
}

export interface SubmitOptions {
  /** The customer's IP address: a submit follows their own return from the bank. */
  customerAddress?: string | undefined;
}

/** The call may have reached the provider, but its answer is unknown (timeout, connection lost). */
export class ProviderOutcomeUnknownError extends Error {
  override name = 'ProviderOutcomeUnknownError';
}

export interface StartedPayment {
  /** The bank's page for the customer; null when the provider gave no link. */
  customerUrl: string | null;
}

/** A provider's news as a lifecycle step: the record after it and the history it appends. */
export type StatusUpdate = (payment: PaymentRecord, now: Date) => Change;
