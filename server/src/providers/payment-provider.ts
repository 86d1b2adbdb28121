import type { Change, PaymentRecord } from '@pis/shared';

/**
 * What the service needs from a provider (a bank connection). The Mock bank is one adapter; a
 * real provider adds another and registers it, and no router or domain function changes.
 * Adapters do their I/O here and never write payments: the domain claims each call under the
 * payment's row lock first and applies what they report through the same lock
 * (payments/provider-claims.ts).
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
}

export interface StartOptions {
  /** When the customer's link that led here expires: a link the provider gives must not outlive it. */
  linkNotAfter?: Date | undefined;
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
