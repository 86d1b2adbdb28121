import {
  type ApprovalTiming,
  type MockBankDefinition,
  merchantReturnUrl,
  type Payment,
  type RejectReason,
} from '@pis/shared';
import type { RequestHandler } from 'msw';
import { createHandlers, type QueuedFailure } from './mock-handlers.ts';
import { type BankAuthorization, MockStore } from './mock-store.ts';
import { MockWaits } from './mock-waits.ts';

/** Options of {@link createMockApi}. */
export interface MockApiOptions {
  /** Base address the client is given, e.g. `https://pis.test` (routes are `${baseUrl}/api/...`). */
  baseUrl: string;
  /** When set, only this `x-api-key` is accepted; otherwise any non-empty key is. A missing key is always a 401. */
  apiKey?: string | undefined;
  /**
   * The kit's clock, read at every request. Default `Date.now()`, so vitest/jest fake timers
   * (`vi.advanceTimersByTime`, `vi.setSystemTime`) move the mock's time too.
   * `controls.advanceTime` adds on top of it.
   */
  now?: (() => Date | number) | undefined;
  /**
   * Real providers the emulated merchant is approved for, any of the service's (`@pis/shared`
   * `PROVIDERS`): `['obie']` (UK Open Banking), `['nextgenpsd2']` (Berlin Group NextGenPSD2: euro
   * to IBANs through Sandbox Bank EU, `sandbox-bank-eu`), or both. The kit then acts as each
   * provider too: it is listed in providers and its banks in banks, creates with it are accepted
   * (refused as on the service when its banks cannot take them: 400 VALIDATION_FAILED naming
   * `amount.currency`, `toAccount.sortCode`, ...; API_ONLY needs a `bankId`), and the customer at
   * its bank is played with `controls.authorizeAtBank`, its statuses read through the provider's
   * shared status table. Other codes are ignored. Default none: the Mock bank only.
   */
  approvedProviders?: readonly string[] | undefined;
}

/** Test controls of the mock API: play the customer, move time, shape the data, inject failures. */
export interface MockApiControls {
  /**
   * The customer approves at the Mock bank. `scenario` picks the timing like the bank page does
   * (`{ preset: 'realistic' }`, `{ completeAfterSeconds: 30 }`); default: the `mockBank` given at
   * creation, else `instant`. Throws (an `AppError` with code `PAYMENT_ALREADY_DECIDED`, ...)
   * when the payment is not waiting for the customer.
   */
  approve(paymentId: string, scenario?: ApprovalTiming): Payment;
  /** The customer rejects at the Mock bank: FAILED with `reason` (default: the creation's, else `CUST`). */
  reject(paymentId: string, reason?: RejectReason): Payment;
  /**
   * The customer at a real provider's bank (an `obie` or `nextgenpsd2` API_ONLY payment, with that
   * provider in `approvedProviders`), then back at the service's callback.
   * `{ action: 'reject' }`: FAILED / RJCT / CUST (obie: consent RJCT; nextgenpsd2: RJCT, SCA
   * `failed`). `{ action: 'approve' }`: AUTHORIZED at once (obie: then SUBMITTED, bank ACCP;
   * nextgenpsd2: ACTC), ACCEPTED (ACSP) after `stepMs` (default 1,000 ms of the kit's clock) and
   * COMPLETED (ACSC) after twice that; with `insufficientFunds: true` the bank rejects it at the
   * first step instead (FAILED / RJCT / AM04; nextgenpsd2: `fundsAvailable: false`).
   */
  authorizeAtBank(paymentId: string, decision: BankAuthorization): Payment;
  /** The customer chooses a bank on the hosted page (HOSTED_PAGES): PENDING -> AUTHORIZING. */
  chooseBank(paymentId: string, bankId: string): Payment;
  /** Moves the mock's clock forward (timelines and 24 h expiry follow). Not needed with fake timers. */
  advanceTime(ms: number): void;
  /** The mock's current time. */
  now(): Date;
  /**
   * Where the Mock bank sends the customer back after deciding: the payment's `redirectUrl`
   * with `paymentId` and `status` (at this moment) added, as the real page does. Null when the
   * payment was created without a `redirectUrl`.
   */
  returnUrlFor(paymentId: string): string | null;
  /** A payment as `GET /api/payments/{id}` would return it now. */
  getPayment(paymentId: string): Payment;
  /** Every payment, newest first, as of now. */
  payments(): Payment[];
  /** Serves these banks instead of the service's sandbox catalogue (until `reset`). */
  seedBanks(definitions: readonly MockBankDefinition[]): void;
  /**
   * Makes the next matching request fail (`times` of them, default 1): with an HTTP error in the
   * service's envelope (`{ status: 503, code: 'PROVIDER_NOT_CONFIGURED' }`), or with no answer at
   * all (`{ networkError: true }`). Queued failures are used in order.
   */
  failNext(failure?: QueuedFailure & { times?: number | undefined }): void;
  /** Forgets payments, idempotency keys, seeded banks, queued failures and advanced time. */
  reset(): void;
}

/** What {@link createMockApi} returns. */
export interface MockApi {
  /** MSW request handlers: `setupServer(...handlers)` (node) or `setupWorker(...handlers)` (browser). */
  handlers: RequestHandler[];
  /** Test controls; see {@link MockApiControls}. */
  controls: MockApiControls;
}

const matches = (failure: QueuedFailure, method: string, path: string) =>
  (!failure.method || failure.method.toUpperCase() === method.toUpperCase()) &&
  (!failure.path || (typeof failure.path === 'string' ? failure.path === path : failure.path.test(path)));

/**
 * An in-memory Payment Initiation Service for tests and prototypes with no server: the whole REST
 * API as MSW handlers, built on the service's own contract and lifecycle (`@pis/shared`), so
 * validation, envelopes, error codes and status transitions are the service's.
 *
 * ```ts
 * const { handlers, controls } = createMockApi({ baseUrl: 'https://pis.test' });
 * const server = setupServer(...handlers); // from 'msw/node'
 * ```
 */
export const createMockApi = (options: MockApiOptions): MockApi => {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const store = new MockStore(baseUrl, options.approvedProviders);
  const waits = new MockWaits();
  /** A control's change wakes held reads (`GET` with `Prefer: wait`) at once. */
  const waking = <T>(result: T): T => {
    waits.wake();
    return result;
  };
  // Looked up at every call, so fake timers installed after this point still move the mock's time.
  const readClock = options.now ?? (() => Date.now());
  let offsetMs = 0;
  let failures: Array<QueuedFailure> = [];

  const now = () => new Date(new Date(readClock()).getTime() + offsetMs);

  const takeFailure = (method: string, path: string) => {
    const index = failures.findIndex((failure) => matches(failure, method, path));
    if (index === -1) return undefined;
    const [failure] = failures.splice(index, 1);
    return failure;
  };

  const controls: MockApiControls = {
    approve: (paymentId, scenario) => waking(store.approve(paymentId, scenario, now())),
    reject: (paymentId, reason) => waking(store.reject(paymentId, reason, now())),
    authorizeAtBank: (paymentId, decision) => waking(store.authorizeAtBank(paymentId, decision, now())),
    chooseBank: (paymentId, bankId) => waking(store.chooseBank(paymentId, bankId, now())),
    advanceTime: (ms) => {
      if (!(ms >= 0)) throw new RangeError('advanceTime needs a non-negative number of ms');
      offsetMs += ms;
      waits.wake();
    },
    now,
    returnUrlFor: (paymentId) => {
      const payment = store.get(paymentId, now());
      return merchantReturnUrl(payment.redirectUrl ?? null, payment.paymentId, payment.status);
    },
    getPayment: (paymentId) => store.get(paymentId, now()),
    payments: () => store.all(now()),
    seedBanks: (definitions) => store.seedBanks(definitions),
    failNext: ({ times = 1, ...failure } = {}) => {
      for (let i = 0; i < times; i++) failures.push(failure);
    },
    reset: () => {
      store.reset();
      failures = [];
      offsetMs = 0;
      waits.wake();
    },
  };

  return {
    handlers: createHandlers({ baseUrl, apiKey: options.apiKey, store, now, takeFailure, waits }),
    controls,
  };
};
