import {
  type BankReport,
  MOCK_PROVIDER,
  NEXTGENPSD2_PROVIDER,
  nextgenpsd2Report,
  OBIE_PROVIDER,
  obieReport,
  PROVIDERS,
  type ProviderStatus,
} from '@pis/shared';

/**
 * How the kit plays a real provider's bank: what the bank says, in the provider's own words run
 * through its ONE shared status table (`obieReport`, `nextgenpsd2Report`: what the server's
 * adapter applies too), at each point of the customer's visit. The kit never maps a bank status
 * itself; `reportFromBank` moves the payment as it does on the service.
 */
export type EmulatedBank = {
  /** An API_ONLY payment handed to the bank: waiting for the customer there. */
  readonly created: BankReport;
  /** Whether the bank still waits for the customer (nothing decided yet). */
  readonly awaitsCustomer: (providerStatus: ProviderStatus | null | undefined) => boolean;
  /** The customer refuses at the bank (the service learns it at the callback). */
  readonly refused: BankReport;
  /** The customer approves: what the service learns at the callback, applied at once, in order. */
  readonly approved: readonly BankReport[];
  /** Then the bank's own timeline, one report every `stepMs` (RJCT / AM04 first when no funds). */
  readonly timeline: (insufficientFunds: boolean) => readonly BankReport[];
};

/**
 * UK Open Banking: a consent (AWAU) the customer authorises (AUTH), then the payment submitted
 * under it (COND, bank ACCP) and the bank's statuses for that payment.
 */
const OBIE_BANK: EmulatedBank = {
  created: obieReport({ consentStatus: 'AWAU', bankStatus: null }),
  awaitsCustomer: (status) => status?.consent === 'AWAU',
  refused: obieReport({ consentStatus: 'RJCT', bankStatus: null }),
  approved: [
    obieReport({ consentStatus: 'AUTH', bankStatus: null }),
    obieReport({ consentStatus: 'COND', bankStatus: 'ACCP' }),
  ],
  timeline: (insufficientFunds) =>
    insufficientFunds
      ? [obieReport({ consentStatus: 'COND', bankStatus: 'RJCT', bankReason: 'AM04' })]
      : [
          obieReport({ consentStatus: 'COND', bankStatus: 'ACSP' }),
          obieReport({ consentStatus: 'COND', bankStatus: 'ACSC' }),
        ],
};

/**
 * Berlin Group NextGenPSD2, as Sandbox Bank EU answers (sandbox-bank/src/xs2a/payments.ts): the
 * payment made at the bank (RCVD) when created; the customer's SCA finalised is ACTC, then the
 * bank debits (ACSP, or RJCT with `fundsAvailable: false`) and settles (ACSC); a refusal is RJCT
 * with the authorisation's SCA `failed`.
 */
const NEXTGENPSD2_BANK: EmulatedBank = {
  created: nextgenpsd2Report({ transactionStatus: 'RCVD' }),
  awaitsCustomer: (status) => status?.transaction === 'RCVD',
  refused: nextgenpsd2Report({ transactionStatus: 'RJCT', scaStatus: 'failed' }),
  approved: [nextgenpsd2Report({ transactionStatus: 'ACTC' })],
  timeline: (insufficientFunds) =>
    insufficientFunds
      ? [nextgenpsd2Report({ transactionStatus: 'RJCT', fundsAvailable: false })]
      : [nextgenpsd2Report({ transactionStatus: 'ACSP' }), nextgenpsd2Report({ transactionStatus: 'ACSC' })],
};

const EMULATED_BANKS: ReadonlyMap<string, EmulatedBank> = new Map([
  [OBIE_PROVIDER, OBIE_BANK],
  [NEXTGENPSD2_PROVIDER, NEXTGENPSD2_BANK],
]);

/** The real providers (every one in `PROVIDERS` but the Mock bank), by their descriptors. */
export const REAL_PROVIDER_CODES: readonly string[] = PROVIDERS.map((descriptor) => descriptor.code).filter(
  (code) => code !== MOCK_PROVIDER,
);

/** How the kit plays this provider's bank; undefined for the Mock bank (approve / reject play it). */
export const emulatedBank = (provider: string): EmulatedBank | undefined => EMULATED_BANKS.get(provider);
