import type { MockBankDefinition } from '../bank-catalogue.ts';
import type { IsoCode, ReasonCode } from '../state-machine.ts';

/**
 * What the payments core knows of a provider without naming it: the facts every rule that used
 * to ask "is this obie?" asks instead (create rules, the customer link, the banks it reaches).
 * One descriptor per provider, in its own file under `shared/src/providers/`, listed once in
 * `providers/index.ts`; the server's adapter of the same code does the talking to the bank.
 */
export interface ProviderDescriptor {
  /** The `provider` code merchants use. */
  readonly code: string;
  /** The name the console and `GET /payments/providers` show. */
  readonly name: string;
  /**
   * Whose link the customer gets for an API_ONLY payment: `ours` (a page of ours, signed by us, so
   * a new one can be made: the Mock bank; or our `/providers/:code/authorize/:token`, which asks
   * the bank for its page when opened), or `bank` (a page only the bank can issue again).
   */
  readonly linkKind: 'ours' | 'bank';
  /** ISO 4217 currencies its banks take; `any` when the provider itself does not limit them. */
  readonly currencies: readonly string[] | 'any';
  /** How a payee's account may be given: `iban`, `sortCode` (with an account number). */
  readonly accountSchemes: readonly AccountScheme[];
  /** Largest number of decimals an amount may carry at its banks (the currency's own when absent). */
  readonly maxDecimals?: number;
  /** An API_ONLY payment must name its bank: there is no page of ours to choose one on. */
  readonly bankRequiredForApiOnly: boolean;
  /**
   * Approval at its bank is final and the bank sets no deadline of its own (nextgenpsd2): our
   * 24 h expiry takes effect only once the bank has cancelled the payment there, never on the
   * clock alone (the worker's poll asks it: payments/poll-provider.ts). Otherwise a customer
   * could approve, at the bank, a payment we answered EXPIRED.
   */
  readonly expiryToldToBank?: boolean;
  /** The banks it reaches (listed by `GET /banks` for organizations approved for it). */
  readonly banks: readonly MockBankDefinition[];
}

export type AccountScheme = 'iban' | 'sortCode';

/** What a bank's status means for the merchant, mapped by the provider's own table. */
export type BankTarget = { iso: IsoCode; reason?: ReasonCode; details: string };

/**
 * A provider's news about one payment, in the core's words: where it puts the payment (null when
 * the bank said nothing the table knows) and the bank's own statuses as reported, kept on the
 * payment as they are (`provider_status`, shown to the merchant's console), by the adapter's names
 * (obie: `consent`, `payment`; nextgenpsd2: `transaction`, `sca`).
 */
export type BankReport = {
  target: BankTarget | null;
  providerStatus: ProviderStatus;
};

/** The bank's own statuses for a payment, by the provider's names for them. */
export type ProviderStatus = Readonly<Record<string, string>>;
