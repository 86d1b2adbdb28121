import {
  type Actor,
  AppError,
  type ApprovalTiming,
  advanceClock,
  approve,
  type Bank,
  type BankList,
  type BankReport,
  bankProviders,
  byActor,
  type Change,
  type CreatedPayment,
  type CreatePaymentCommand,
  CUSTOMER_ACTOR,
  CUSTOMER_LINK_LIFETIME_SECONDS,
  cancel,
  catchUp,
  checkCreateRules,
  customerLinkKind,
  customerLinkPath,
  customerLinkRenewable,
  defaultReference,
  EXPORT_COLUMNS,
  type ExportPaymentsQuery,
  findBank,
  type HistoryRecord,
  IDEMPOTENCY_KEY_TTL_MS,
  idempotencyKeyReused,
  isTerminal,
  type ListBanksQuery,
  type ListPaymentsQuery,
  listBanks,
  MESSAGES,
  MOCK_PROVIDER,
  type MockBankDefinition,
  type NewCustomerLink,
  newEndToEndId,
  newPaymentId,
  type Payment,
  type PaymentList,
  type PaymentRecord,
  type ProviderEntry,
  type ProviderStatus,
  paymentMatches,
  paymentNow,
  paymentProviders,
  type RejectReason,
  reachableBank,
  receivePayment,
  reject,
  reportFromBank,
  resolveRejectReason,
  resolveTiming,
  sendToProvider,
  stableJson,
  toCreatedPayment,
  toPayment,
} from '@pis/shared';
import type { z } from 'zod';
import { emulatedBank, REAL_PROVIDER_CODES } from './mock-provider-banks.ts';

type ListPaymentsFilters = z.output<typeof ListPaymentsQuery>;
type ListBanksFilters = z.output<typeof ListBanksQuery>;
type ExportFilters = z.output<typeof ExportPaymentsQuery>;

/** The organization every mock payment belongs to: the kit emulates one merchant. */
const ORGANIZATION_ID = 'org_mock';
/** Its name, as the bank reads it in a default reference. */
const ORGANIZATION_NAME = 'Mock Merchant';

type StoredPayment = {
  record: PaymentRecord;
  history: HistoryRecord[];
  /** Where the customer is sent (CreatedPayment.redirectUrl). */
  customerUrl: string | null;
  /**
   * Creation order, to list payments created in the same millisecond newest first. (The service
   * breaks such ties by its random ids, i.e. arbitrarily; creation order is one of its orders.)
   */
  sequence: number;
  /**
   * A real provider's payment: what its bank has still to report, in order, each as of its own
   * time (see authorizeAtBank), already in the core's words (its shared table's `BankReport`).
   */
  bankSteps?: { at: Date; report: BankReport }[];
};

/**
 * How the customer decides at a real provider's bank in the kit (`obie`, `nextgenpsd2`;
 * MockApiControls.authorizeAtBank).
 */
export type BankAuthorization = {
  action: 'approve' | 'reject';
  /** The account has less than the amount: the bank rejects the payment (RJCT / AM04). */
  insufficientFunds?: boolean | undefined;
  /** Between the bank's steps after the approval (ACSP, ACSC; or RJCT); default 1,000 ms of the kit's clock. */
  stepMs?: number | undefined;
};

/** A remembered create: what it asked (fingerprint) and what it answered. */
type IdempotentCreate = { hash: string; response: CreatedPayment; createdAt: Date };

/**
 * The kit's in-memory database and the service's payment operations over it. Every status
 * change goes through the lifecycle in `@pis/shared` (the same functions the server persists),
 * and every read first catches the payment up to "now", as the server's GET does.
 */
export class MockStore {
  readonly #baseUrl: string;
  readonly #approved: readonly string[];
  readonly #payments = new Map<string, StoredPayment>();
  readonly #idempotency = new Map<string, IdempotentCreate>();
  #sequence = 0;
  #catalogue: readonly MockBankDefinition[] | undefined;

  /**
   * `approvedProviders`: the real providers the emulated merchant may use (any in shared's
   * `PROVIDERS` but the Mock bank: `obie`, `nextgenpsd2`); other codes are ignored.
   */
  constructor(baseUrl: string, approvedProviders: readonly string[] = []) {
    this.#baseUrl = baseUrl;
    this.#approved = approvedProviders.filter((code) => REAL_PROVIDER_CODES.includes(code));
  }

  reset(): void {
    this.#payments.clear();
    this.#idempotency.clear();
    this.#sequence = 0;
    this.#catalogue = undefined;
  }

  // ---- payments ----

  /**
   * POST /api/payments after validation, in the service's order: provider rules, bank, then the
   * idempotency replay, then receive and (API_ONLY) hand to the Mock bank at once.
   */
  create(
    command: CreatePaymentCommand,
    idempotencyKey: string | undefined,
    now: Date,
    actor?: Actor,
  ): CreatedPayment {
    checkCreateRules(command, {
      ...this.#bankContext(),
      isConfigured: (provider) => provider === MOCK_PROVIDER || this.#approved.includes(provider),
      hostedPagesEnabled: true,
    });
    const hash = stableJson(command);
    if (idempotencyKey !== undefined) {
      const earlier = this.#idempotency.get(idempotencyKey);
      if (earlier && earlier.createdAt.getTime() > now.getTime() - IDEMPOTENCY_KEY_TTL_MS) {
        if (earlier.hash !== hash) {
          throw idempotencyKeyReused();
        }
        return earlier.response;
      }
    }

    const ids = { id: newPaymentId(), organizationId: ORGANIZATION_ID, endToEndId: newEndToEndId() };
    // No reference given: the merchant's name and a short code, as the service gives it.
    const referenced =
      command.reference === undefined
        ? { ...command, reference: defaultReference(ORGANIZATION_NAME, ids.endToEndId) }
        : command;
    const received = byActor(actor, receivePayment)(referenced, ids, now);
    let change = received;
    if (command.flowType === 'API_ONLY') {
      const sent = byActor(actor, sendToProvider)(received.record, command.bankId ?? null, now);
      change = { record: sent.record, history: [...received.history, ...sent.history] };
      const bank = emulatedBank(command.provider);
      if (bank) {
        // The bank awaiting the customer (obie's consent AWAU, nextgenpsd2's payment RCVD): a fact
        // of its own; our status stays AUTHORIZING.
        const waiting = reportFromBank(change.record, bank.created, now);
        change = { record: waiting.record, history: [...change.history, ...waiting.history] };
      }
    }
    const customerUrl = this.#customerUrl(change.record);
    this.#payments.set(change.record.id, {
      record: change.record,
      history: change.history,
      customerUrl,
      sequence: this.#sequence++,
    });
    const created = toCreatedPayment(change.record, customerUrl);
    if (idempotencyKey !== undefined)
      this.#idempotency.set(idempotencyKey, { hash, response: created, createdAt: now });
    return created;
  }

  /** GET /api/payments/{id} and sync: the payment caught up to `now`. */
  get(paymentId: string, now: Date): Payment {
    const stored = this.#caughtUp(paymentId, now);
    return toPayment(stored.record, stored.history);
  }

  /**
   * A real provider's payment: its bank's statuses as the service keeps them (`provider_status`,
   * by the provider's names: obie `consent`, `payment`; nextgenpsd2 `transaction`, `sca`). The
   * service shows them in its console, not in the API; the kit's own tests read them here.
   */
  providerStatus(paymentId: string, now: Date): ProviderStatus | null {
    return this.#caughtUp(paymentId, now).record.providerStatus;
  }

  /** GET /api/payments: newest first, filtered, one page. */
  list(filters: ListPaymentsFilters, now: Date): PaymentList {
    for (const id of this.#payments.keys()) this.#caughtUp(id, now);
    const matching = this.#matching(filters);
    return {
      payments: matching
        .slice(filters.offset, filters.offset + filters.limit)
        .map(({ record, history }) => toPayment(record, history)),
      total: matching.length,
      limit: filters.limit,
      offset: filters.offset,
    };
  }

  /** GET /api/payments/export: the matching payments' rows (header first), as the service's CSV has them. */
  exportRows(filters: ExportFilters, now: Date): string[][] {
    for (const id of this.#payments.keys()) this.#caughtUp(id, now);
    return [
      EXPORT_COLUMNS.map((column) => column.header),
      ...this.#matching(filters).map(({ record }) => EXPORT_COLUMNS.map((column) => column.cell(record))),
    ];
  }

  /** POST /api/payments/{id}/link: a new link for an unfinished payment (409 PAYMENT_FINISHED once finished). */
  newLink(paymentId: string, now: Date): NewCustomerLink {
    const { record } = this.#caughtUp(paymentId, now);
    if (isTerminal(record.status)) {
      throw new AppError(
        'PAYMENT_FINISHED',
        `Payment is ${record.status}: a customer link would lead nowhere. Create a new payment instead.`,
      );
    }
    if (!customerLinkRenewable(record)) {
      throw new AppError(
        'LINK_NOT_RENEWABLE',
        `The customer authorises this ${record.provider} payment on the bank's own page, which only the bank can issue. ` +
          'Use a hosted flow to be able to send new links.',
      );
    }
    const lifetime = CUSTOMER_LINK_LIFETIME_SECONDS[customerLinkKind(record)];
    const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + lifetime * 1000);
    return {
      redirectUrl: `${this.#customerUrl(record)}.${expiresAt.getTime()}`,
      expiresAt: expiresAt.toISOString(),
    };
  }

  cancel(paymentId: string, now: Date, actor?: Actor): Payment {
    return this.#apply(paymentId, (record, at) => byActor(actor, cancel)(record, at), now);
  }

  /** The customer approves at the Mock bank; `chosen` overrides the creation's `mockBank` timing. */
  approve(paymentId: string, chosen: ApprovalTiming | undefined, now: Date, actor = CUSTOMER_ACTOR): Payment {
    return this.#apply(
      paymentId,
      (record, at) => byActor(actor, approve)(record, resolveTiming(chosen, record.mockBank), at),
      now,
    );
  }

  /** A test clock: the payment's own clock `seconds` ahead (shared `advanceClock`), Mock payments only. */
  advance(paymentId: string, seconds: number, now: Date): Payment {
    return this.#apply(paymentId, (record, at) => advanceClock(record, seconds, at), now);
  }

  /** The customer rejects at the Mock bank with `reason` (default: the creation's, else CUST). */
  reject(paymentId: string, reason: RejectReason | undefined, now: Date, actor = CUSTOMER_ACTOR): Payment {
    return this.#apply(
      paymentId,
      (record, at) => byActor(actor, reject)(record, resolveRejectReason(reason, record.mockBank), at),
      now,
    );
  }

  /** The customer picks a bank on the hosted page: the payment goes to the Mock bank (AUTHORIZING). */
  chooseBank(paymentId: string, bankId: string, now: Date): Payment {
    return this.#apply(
      paymentId,
      (record, at) => {
        reachableBank(bankId, record.provider, this.#bankContext());
        return byActor(CUSTOMER_ACTOR, sendToProvider)(record, bankId, at);
      },
      now,
    );
  }

  /**
   * The customer at a real provider's bank, then back at the service's callback, in the bank's
   * own statuses (`mock-provider-banks.ts`) through the provider's shared table. A refusal is
   * FAILED / RJCT / CUST at once. An approval is what the callback learns, at once (obie: the
   * consent authorised, AUTHORIZED, and the payment submitted, SUBMITTED / bank ACCP;
   * nextgenpsd2: the SCA finalised, AUTHORIZED / ACTC), then the bank's own timeline on the kit's
   * clock: ACSP (ACCEPTED) after `stepMs`, ACSC (COMPLETED) after twice that, or RJCT / AM04 at
   * the first step with `insufficientFunds`. The bank's statuses are kept as on the service.
   */
  authorizeAtBank(paymentId: string, decision: BankAuthorization, now: Date): Payment {
    const stored = this.#caughtUp(paymentId, now);
    const bank = emulatedBank(stored.record.provider);
    if (!bank) {
      throw new AppError(
        'VALIDATION_FAILED',
        `authorizeAtBank is for a real provider's payments (${REAL_PROVIDER_CODES.join(', ')}); use approve or reject`,
      );
    }
    if (stored.record.status !== 'AUTHORIZING' || !bank.awaitsCustomer(stored.record.providerStatus)) {
      throw new AppError(
        'PAYMENT_ALREADY_DECIDED',
        `Payment is ${stored.record.status}: nothing awaits the customer`,
      );
    }
    if (decision.action === 'reject') {
      return this.#apply(paymentId, (record, at) => reportFromBank(record, bank.refused, at), now);
    }
    const stepMs = decision.stepMs ?? 1_000;
    const at = (steps: number) => new Date(now.getTime() + steps * stepMs);
    this.#apply(
      paymentId,
      (record, at) =>
        bank.approved.reduce<Change>(
          (change, report) => {
            const next = reportFromBank(change.record, report, at);
            return { record: next.record, history: [...change.history, ...next.history] };
          },
          { record, history: [] },
        ),
      now,
    );
    const next = this.#stored(paymentId);
    next.bankSteps = bank
      .timeline(decision.insufficientFunds ?? false)
      .map((report, index) => ({ at: at(index + 1), report }));
    return this.get(paymentId, now);
  }

  /** Every payment, newest first, caught up to `now` (for assertions). */
  all(now: Date): Payment[] {
    return this.list({ limit: Number.MAX_SAFE_INTEGER, offset: 0 }, now).payments;
  }

  // ---- banks and providers ----

  /** Replaces the Mock bank catalogue the kit serves (undefined: the service's own catalogue). */
  seedBanks(definitions: readonly MockBankDefinition[] | undefined): void {
    this.#catalogue = definitions;
  }

  listBanks(filters: ListBanksFilters): BankList {
    return listBanks(filters, this.#bankContext());
  }

  findBank(bankId: string): Bank | undefined {
    return findBank(bankId, this.#bankContext());
  }

  bankProviders(): string[] {
    return bankProviders([MOCK_PROVIDER, ...this.#approved]);
  }

  paymentProviders(): ProviderEntry[] {
    return paymentProviders(this.#approved);
  }

  // ---- internals ----

  #bankContext() {
    return {
      approvedProviders: [MOCK_PROVIDER, ...this.#approved],
      baseUrl: this.#baseUrl,
      ...(this.#catalogue ? { catalogue: this.#catalogue } : {}),
    };
  }

  #stored(paymentId: string): StoredPayment {
    const stored = this.#payments.get(paymentId);
    if (!stored) throw new AppError('NOT_FOUND', MESSAGES.paymentNotFound);
    return stored;
  }

  #save(stored: StoredPayment, change: Change): StoredPayment {
    const next = { ...stored, record: change.record, history: [...stored.history, ...change.history] };
    this.#payments.set(change.record.id, next);
    return next;
  }

  /** Newest first, as the service orders them. */
  #matching(filters: Partial<ExportFilters>): StoredPayment[] {
    return [...this.#payments.values()]
      .filter(({ record }) => paymentMatches(record, filters))
      .sort((a, b) => b.record.createdAt.getTime() - a.record.createdAt.getTime() || b.sequence - a.sequence);
  }

  /** Caught up on the payment's own clock (ahead of `now` once its test clock was advanced). */
  #caughtUp(paymentId: string, now: Date): StoredPayment {
    let stored = this.#stored(paymentId);
    // A real bank's statuses that fell due, each as of its own time (as the service's poll reads them).
    const due = stored.bankSteps?.filter((step) => step.at.getTime() <= now.getTime()) ?? [];
    for (const step of due) stored = this.#save(stored, reportFromBank(stored.record, step.report, step.at));
    if (due.length > 0) stored.bankSteps = stored.bankSteps?.slice(due.length);
    return this.#save(stored, catchUp(stored.record, paymentNow(stored.record, now)));
  }

  /**
   * Applies one lifecycle event at the payment's own time; the lifecycle catches up first and
   * refuses illegal moves.
   */
  #apply(paymentId: string, event: (record: PaymentRecord, at: Date) => Change, now: Date): Payment {
    const stored = this.#stored(paymentId);
    const next = this.#save(stored, event(stored.record, paymentNow(stored.record, now)));
    return toPayment(next.record, next.history);
  }

  /**
   * The customer link, shaped like the service's (`/mock-bank/{token}`, `/pay/{token}`). The
   * token is not signed: no page behind it runs in the kit.
   */
  #customerUrl(record: PaymentRecord): string {
    // A real provider's link is the service's, which sends the customer on to the bank (in the
    // kit, an address only: authorizeAtBank plays the bank).
    return `${this.#baseUrl}${customerLinkPath(customerLinkKind(record), record.provider)}/mock.${record.id}`;
  }
}
