import type { Change, PaymentRecord } from '@pis/shared';

/**
 * What the service needs from a provider (a bank connection). The Mock bank is one adapter; a
 * real provider adds another and registers it, and no router or domain function changes.
 * Adapters do their I/O here and never write payments: the domain applies what they report
 * under the payment's row lock.
 */
export interface PaymentProvider {
  /** The `provider` code merchants use. */
  readonly code: string;
  /** Hands the payment to the provider; the answer is the page the customer authorises on. */
  startPayment(payment: PaymentRecord, now: Date): Promise<StartedPayment>;
  /**
   * Asks the provider where the payment stands. The answer is a pure step applied to the
   * freshly locked record, so news read outside the lock can never overwrite a newer state.
   */
  readStatus(payment: PaymentRecord, now: Date): Promise<StatusUpdate>;
  /** Tells the provider the merchant cancelled the payment. */
  cancelPayment(payment: PaymentRecord, now: Date): Promise<void>;
}

export interface StartedPayment {
  /** The bank's page for the customer; null when the provider gave no link. */
  customerUrl: string | null;
}

/** A provider's news as a lifecycle step: the record after it and the history it appends. */
export type StatusUpdate = (payment: PaymentRecord, now: Date) => Change;
