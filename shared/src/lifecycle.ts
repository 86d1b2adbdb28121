import { AppError } from './errors.ts';
import {
  dueSteps,
  type MockBankScenario,
  type RejectReason,
  type ResolvedTiming,
  timelineFor,
} from './mock-bank.ts';
import type { CreatePaymentCommand, FlowType, PaymentError } from './payments.ts';
import { type Account, type Amount, MOCK_PROVIDER, type Reference } from './primitives.ts';
import { providerDescriptor } from './providers/index.ts';
import type { BankReport, ProviderStatus } from './providers/provider-descriptor.ts';
import {
  canTransition,
  type IsoCode,
  isTerminal,
  type PaymentStatus,
  REASON_NAMES,
  type ReasonCode,
  serviceStatusOf,
} from './state-machine.ts';

/**
 * The payment lifecycle as pure functions over plain records. The server persists what these
 * return inside one transaction per change; the MSW kit keeps it in memory. Neither decides a
 * status on its own.
 */

export const PAYMENT_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const HOSTED_LINK_TTL_SECONDS = 60 * 60;
export const MOCK_BANK_LINK_TTL_SECONDS = 30 * 60;
/**
 * A real provider's customer link (ours, /providers/<code>/authorize/<token>): asks the bank for
 * its sign-in page each time it is opened, so it may outlive the bank's own (obie's PAR request
 * lives 60 s). As long as the Mock bank's link: both are the link a merchant sends for API_ONLY.
 */
export const BANK_LINK_TTL_SECONDS = 30 * 60;

/** What a customer link opens: the hosted page, the Mock bank's page, or ours that sends on to a bank. */
export type CustomerLinkKind = 'hosted' | 'mock-bank' | 'bank';

export const CUSTOMER_LINK_LIFETIME_SECONDS: Readonly<Record<CustomerLinkKind, number>> = {
  hosted: HOSTED_LINK_TTL_SECONDS,
  'mock-bank': MOCK_BANK_LINK_TTL_SECONDS,
  bank: BANK_LINK_TTL_SECONDS,
};

/**
 * The one new-link rule, for the service and the MSW kit: a hosted flow's link is the payment
 * page; an API_ONLY payment's is the Mock bank's page, or for a real provider our link at
 * `/providers/<code>/authorize/` that sends the customer on to the bank.
 */
export const customerLinkKind = (payment: { flowType: string; provider: string }): CustomerLinkKind =>
  payment.flowType !== 'API_ONLY' ? 'hosted' : payment.provider === MOCK_PROVIDER ? 'mock-bank' : 'bank';

/** The path a link of this kind opens, before its token. */
export const customerLinkPath = (kind: CustomerLinkKind, provider: string): string =>
  kind === 'hosted'
    ? '/pay'
    : kind === 'mock-bank'
      ? '/mock-bank'
      : `/providers/${encodeURIComponent(provider)}/authorize`;

/**
 * Live or test: the mode of the API key that made the payment. A key sees only its own mode's
 * payments; practice banks (the Mock bank, the sandbox bank) take only test payments.
 */
export const PAYMENT_MODES = ['test', 'live'] as const;
export type PaymentMode = (typeof PAYMENT_MODES)[number];

export type PaymentRecord = {
  id: string;
  organizationId: string;
  mode: PaymentMode;
  status: PaymentStatus;
  isoCode: IsoCode;
  isoReason: ReasonCode | null;
  provider: string;
  bankId: string | null;
  amount: Amount;
  fromAccount: Account | null;
  toAccount: Account;
  reference: Reference;
  flowType: FlowType;
  /** The merchant's return URL (`redirectUrl` on input). */
  returnUrl: string | null;
  /** The request's `mockBank` scenario, kept for the page's defaults and the reject reason. */
  mockBank: MockBankScenario | null;
  approvedAt: Date | null;
  timing: ResolvedTiming | null;
  error: PaymentError | null;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  completedAt: Date | null;
  /** When the payment next changes by itself (a timeline step or expiry); null once finished. */
  nextDueAt: Date | null;
  /**
   * A real provider's own statuses as its bank last reported them, by the provider's names
   * (obie: `consent` AWAU ... COND, `payment` RCVD ... ACSC); null before any news.
   */
  providerStatus: ProviderStatus | null;
  /**
   * The payment's own test clock: how far it has been moved ahead of the real time (seconds,
   * Mock bank payments only, see `advanceClock`). Its lifecycle runs at `paymentNow`.
   */
  clockOffsetSeconds: number;
};

/**
 * Who made a history entry: a dashboard member (by email), the customer at the bank (the Mock
 * bank or hosted page), the bank (its later steps and reports), the 24-hour expiry, or an API key
 * (by its non-secret prefix). Null where nobody was known when it was made (entries from before
 * actors were kept, a provider claim settled by the reconcile job).
 */
export type ActorType = 'member' | 'customer' | 'bank' | 'expiry' | 'api_key';
export type Actor = { type: ActorType; name?: string };

export type HistoryRecord = {
  status: PaymentStatus;
  isoCode: IsoCode;
  isoReason: ReasonCode | null;
  provider: string | null;
  details: string | null;
  timestamp: Date;
  /** Made by advancing the payment's test clock (`advanceClock`), not by time really passing. */
  simulated: boolean;
  actor: Actor | null;
};

/** What one event did: the record after it and the history entries it appended (oldest first). */
export type Change = { record: PaymentRecord; history: HistoryRecord[] };

const BANK: Actor = { type: 'bank' };
/** How many characters of an API key name it on history entries and pages: `pis_` and 8 more, never secret. */
export const API_KEY_DISPLAY_PREFIX_LENGTH = 12;
/** The customer at the bank (the Mock bank's page) or on the hosted page. */
export const CUSTOMER_ACTOR: Actor = { type: 'customer' };

/**
 * An event whose own entries are made by `actor` (an entry that already names one, such as an
 * expiry caught up on the way, keeps it). Without an actor, the event as it is.
 */
export const byActor =
  <A extends unknown[]>(actor: Actor | undefined, event: (...args: A) => Change) =>
  (...args: A): Change => {
    const change = event(...args);
    if (!actor) return change;
    return { ...change, history: change.history.map((entry) => (entry.actor ? entry : { ...entry, actor })) };
  };

const STEP_DETAILS: Partial<Record<IsoCode, string>> = {
  ACTC: 'Approved by the customer at the bank',
  ACCP: 'Submitted to the payment scheme',
  ACSP: 'Accepted for settlement',
  ACSC: 'Settlement completed',
};

const REJECTION_MESSAGES: Record<RejectReason, string> = {
  CUST: 'The customer rejected the payment at the bank',
  AM04: "Insufficient funds in the customer's account",
  AC04: "The customer's account number is closed",
  NARR: 'The bank rejected the payment',
};

/** Moves the record to a new ISO status, if the state machine allows it. */
const move = (
  change: Change,
  to: { iso: IsoCode; reason?: ReasonCode; details: string; provider: string | null; actor?: Actor },
  at: Date,
  now: Date,
): Change => {
  const status = serviceStatusOf(to.iso, to.reason);
  if (!canTransition(change.record.status, status)) {
    throw new Error(`Illegal payment transition ${change.record.status} -> ${status}`);
  }
  const record: PaymentRecord = {
    ...change.record,
    status,
    isoCode: to.iso,
    isoReason: to.reason ?? null,
    updatedAt: now,
    ...(status === 'COMPLETED' ? { completedAt: at } : {}),
  };
  const entry: HistoryRecord = {
    status,
    isoCode: to.iso,
    isoReason: to.reason ?? null,
    provider: to.provider,
    details: to.details,
    timestamp: at,
    simulated: false,
    actor: to.actor ?? null,
  };
  return { record: withNextDue(record), history: [...change.history, entry] };
};

/** The next moment this payment changes by itself: its next timeline step, else its expiry. */
const withNextDue = (record: PaymentRecord): PaymentRecord => {
  if (isTerminal(record.status)) return { ...record, nextDueAt: null };
  // Approved at a real bank: the bank's statuses move it from here, our expiry no longer applies.
  if (record.approvedAt && !record.timing) return { ...record, nextDueAt: null };
  if (record.approvedAt && record.timing) {
    const approvedAt = record.approvedAt.getTime();
    const reached = timelineFor(record.timing).findIndex((step) => step.iso === record.isoCode);
    const next = timelineFor(record.timing)[reached + 1];
    return { ...record, nextDueAt: next ? new Date(approvedAt + next.atSeconds * 1000) : null };
  }
  // The bank decides its expiry (expiresAtBank): the worker's poll, not a due step, asks it.
  return { ...record, nextDueAt: expiresAtBank(record) ? null : record.expiresAt };
};

export type NewPaymentIds = {
  id: string;
  organizationId: string;
  endToEndId: string;
  /** The key's mode; test when absent. */
  mode?: PaymentMode;
};

/** A new payment, received (PENDING / RCVD). Reference defaults to the end-to-end id. */
export const receivePayment = (command: CreatePaymentCommand, ids: NewPaymentIds, now: Date): Change => {
  const reference: Reference =
    typeof command.reference === 'string'
      ? { reference: command.reference, endToEndId: ids.endToEndId }
      : command.reference
        ? {
            reference: command.reference.reference,
            endToEndId: command.reference.endToEndId ?? ids.endToEndId,
          }
        : { reference: ids.endToEndId, endToEndId: ids.endToEndId };
  const record: PaymentRecord = {
    id: ids.id,
    organizationId: ids.organizationId,
    mode: ids.mode ?? 'test',
    status: 'PENDING',
    isoCode: 'RCVD',
    isoReason: null,
    provider: command.provider,
    bankId: command.bankId ?? null,
    amount: { value: command.amount.value, currency: command.amount.currency },
    fromAccount: command.fromAccount ? compact(command.fromAccount) : null,
    toAccount: compact(command.toAccount),
    reference,
    flowType: command.flowType,
    returnUrl: command.redirectUrl ?? null,
    mockBank: command.mockBank ? compact(command.mockBank) : null,
    approvedAt: null,
    timing: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + PAYMENT_LIFETIME_MS),
    completedAt: null,
    nextDueAt: null,
    providerStatus: null,
    clockOffsetSeconds: 0,
  };
  const entry: HistoryRecord = {
    status: 'PENDING',
    isoCode: 'RCVD',
    isoReason: null,
    provider: null,
    details: 'Payment received',
    timestamp: now,
    simulated: false,
    actor: null,
  };
  return { record: withNextDue(record), history: [entry] };
};

/** The payment is handed to its provider (and bank): AUTHORIZING / PDNG, waiting for the customer. */
export const sendToProvider = (record: PaymentRecord, bankId: string | null, now: Date): Change => {
  const current = catchUp(record, now);
  if (current.record.status !== 'PENDING') {
    throw decidedError(current.record, 'cannot be sent to a bank again');
  }
  const withBank = { ...current, record: { ...current.record, bankId: bankId ?? current.record.bankId } };
  return move(
    withBank,
    { iso: 'PDNG', details: 'Sent to the bank; awaiting customer authorisation', provider: record.provider },
    now,
    now,
  );
};

/** Applies everything that became due by `now`: timeline steps after approval, or expiry. */
export const catchUp = (record: PaymentRecord, now: Date): Change => {
  let change: Change = { record, history: [] };
  if (isTerminal(record.status)) return change;
  if (record.approvedAt && record.timing) {
    for (const step of dueSteps(timelineFor(record.timing), record.approvedAt, now)) {
      if (!isLaterStep(change.record, step.iso, record.timing)) continue;
      const at = new Date(record.approvedAt.getTime() + step.atSeconds * 1000);
      change = move(
        change,
        {
          iso: step.iso,
          details: STEP_DETAILS[step.iso] ?? '',
          provider: record.provider,
          // The approval's own step (at 0 s) is whoever approved (byActor); later ones the bank's.
          ...(step.atSeconds > 0 ? { actor: BANK } : {}),
        },
        at,
        now,
      );
    }
    return change;
  }
  if (!record.approvedAt && now.getTime() >= record.expiresAt.getTime() && !expiresAtBank(record)) {
    change = expired(change, record, now);
  }
  return change;
};

/**
 * A payment whose provider's bank must cancel it before our expiry takes effect
 * (`expiryToldToBank`): once it is at that bank, the clock alone never expires it.
 */
const expiresAtBank = (record: PaymentRecord): boolean =>
  record.status !== 'PENDING' && providerDescriptor(record.provider)?.expiryToldToBank === true;

const expired = (change: Change, record: PaymentRecord, now: Date): Change =>
  move(
    change,
    {
      iso: 'RJCT',
      reason: 'NOAS',
      details: 'Expired: no approval or rejection within 24 hours of creation',
      provider: record.status === 'PENDING' ? null : record.provider,
      actor: { type: 'expiry' },
    },
    record.expiresAt,
    now,
  );

/**
 * Our 24 h expiry of a payment its bank has just cancelled at our request (`expiryToldToBank`);
 * nothing when it was approved or finished meanwhile.
 */
export const expireAfterBankCancel = (record: PaymentRecord, now: Date): Change => {
  const current = catchUp(record, now);
  if (isTerminal(current.record.status) || current.record.approvedAt) return current;
  if (now.getTime() < record.expiresAt.getTime()) return current;
  return expired(current, current.record, now);
};

/**
 * An operator suspended the merchant while the payment still waited for its customer at a bank
 * that takes approval as final, and the bank has just withdrawn it at our request: CANCELLED /
 * CANC / CUST (the spec's only cancel reason), so no customer can still pay a suspended merchant.
 * Nothing when it was approved or finished meanwhile.
 */
export const cancelForSuspendedMerchant = (record: PaymentRecord, now: Date): Change => {
  const current = catchUp(record, now);
  if (isTerminal(current.record.status) || current.record.approvedAt) return current;
  return move(
    current,
    {
      iso: 'CANC',
      reason: 'CUST',
      details: 'Cancelled: the merchant’s account is suspended',
      provider: current.record.provider,
    },
    now,
    now,
  );
};

const isLaterStep = (record: PaymentRecord, iso: IsoCode, timing: ResolvedTiming) => {
  const steps = timelineFor(timing).map((step) => step.iso);
  return steps.indexOf(iso) > steps.indexOf(record.isoCode);
};

const decidedError = (record: PaymentRecord, action: string) =>
  record.status === 'PENDING'
    ? new AppError('BANK_NOT_CHOSEN', `Payment is waiting for the customer to choose a bank and ${action}`)
    : new AppError('PAYMENT_ALREADY_DECIDED', `Payment is already ${record.status} and ${action}`);

/** Waiting at the bank for the customer's decision (approve or reject). */
export const awaitsDecision = (record: Pick<PaymentRecord, 'status' | 'approvedAt'>): boolean =>
  record.status === 'AUTHORIZING' && !record.approvedAt;

const assertAwaitingDecision = (record: PaymentRecord, action: string) => {
  if (!awaitsDecision(record)) throw decidedError(record, action);
};

/** The customer approves at the bank: the Mock timeline starts now (instant completes at once). */
export const approve = (record: PaymentRecord, timing: ResolvedTiming, now: Date): Change => {
  const current = catchUp(record, now);
  assertAwaitingDecision(current.record, 'cannot be approved');
  const approved: Change = { ...current, record: { ...current.record, approvedAt: now, timing } };
  const caught = catchUp(approved.record, now);
  return { record: caught.record, history: [...approved.history, ...caught.history] };
};

/** The customer rejects at the bank: FAILED / RJCT with the reason, and `error` set. */
export const reject = (record: PaymentRecord, reason: RejectReason, now: Date): Change => {
  const current = catchUp(record, now);
  assertAwaitingDecision(current.record, 'cannot be rejected');
  const failed = move(
    current,
    {
      iso: 'RJCT',
      reason,
      details: `Rejected at the bank: ${REASON_NAMES[reason]}`,
      provider: record.provider,
    },
    now,
    now,
  );
  return {
    ...failed,
    record: { ...failed.record, error: { code: reason, message: REJECTION_MESSAGES[reason] } },
  };
};

/**
 * A real bank's news, as its provider's table mapped it (`target`), with the bank's own statuses
 * (`providerStatus`): those are kept as reported, and the payment moves to what the target means
 * only when that is a step forward. A status the bank reports out of order never moves a payment backwards, and a
 * finished payment never changes. A consent the customer authorised counts as approved, so our
 * 24-hour expiry stops applying to it.
 */
export const reportFromBank = (record: PaymentRecord, report: BankReport, now: Date): Change => {
  const current = catchUp(record, now);
  if (isTerminal(current.record.status)) return current;
  const withFacts: Change = {
    ...current,
    record: {
      ...current.record,
      providerStatus:
        Object.keys(report.providerStatus).length === 0
          ? current.record.providerStatus
          : { ...current.record.providerStatus, ...report.providerStatus },
    },
  };
  const { target } = report;
  if (!target) return withFacts;
  const status = serviceStatusOf(target.iso, target.reason);
  if (!canTransition(withFacts.record.status, status)) return withFacts;
  const approved =
    target.iso !== 'PDNG' && target.iso !== 'RJCT' && !withFacts.record.approvedAt
      ? { ...withFacts, record: { ...withFacts.record, approvedAt: now } }
      : withFacts;
  const moved = move(approved, { ...target, provider: record.provider, actor: BANK }, now, now);
  if (target.iso !== 'RJCT') return moved;
  const reason = target.reason ?? 'NARR';
  const message = reason === 'NARR' ? target.details : REJECTION_MESSAGES[reason as RejectReason];
  return { ...moved, record: { ...moved.record, error: { code: reason, message } } };
};

/** The merchant cancels an unfinished payment: CANCELLED / CANC / CUST. */
export const cancel = (record: PaymentRecord, now: Date): Change => {
  const current = catchUp(record, now);
  if (isTerminal(current.record.status)) {
    throw new AppError(
      'PAYMENT_NOT_CANCELLABLE',
      `Payment is ${current.record.status} and can no longer be cancelled`,
    );
  }
  return move(
    current,
    {
      iso: 'CANC',
      reason: 'CUST',
      details: 'Cancelled at the merchant’s request',
      provider: current.record.status === 'PENDING' ? null : record.provider,
    },
    now,
    now,
  );
};

/** The most a test clock moves in one call: a day, so one call can pass the 24-hour expiry. */
export const MAX_CLOCK_ADVANCE_SECONDS = 24 * 60 * 60;

/**
 * The time in a payment's own world: the real `now` plus how far its test clock was advanced.
 * Every lifecycle function takes this time (the server's change pipeline and the MSW kit pass it),
 * so an advanced payment is approved, cancelled and expires on its own clock.
 */
export const paymentNow = (record: Pick<PaymentRecord, 'clockOffsetSeconds'>, now: Date): Date =>
  record.clockOffsetSeconds === 0 ? now : new Date(now.getTime() + record.clockOffsetSeconds * 1000);

/**
 * Moves an unfinished payment's own clock `seconds` ahead (`now` is its time, `paymentNow`): what
 * falls due in that span happens as if the time had passed (timeline steps, the 24-hour expiry),
 * each entry marked `simulated`, and the clock stays ahead from then on. A finished payment has
 * nothing left to happen: 409 PAYMENT_FINISHED.
 */
export const advanceClock = (record: PaymentRecord, seconds: number, now: Date): Change => {
  const current = catchUp(record, now);
  if (isTerminal(current.record.status)) {
    throw new AppError(
      'PAYMENT_FINISHED',
      `Payment is ${current.record.status}: nothing is left to happen, so its clock cannot be advanced`,
    );
  }
  const ahead: PaymentRecord = {
    ...current.record,
    clockOffsetSeconds: current.record.clockOffsetSeconds + seconds,
  };
  const later = catchUp(ahead, new Date(now.getTime() + seconds * 1000));
  return {
    // Its next due time is computed afresh even when nothing fell due (the server stores it on
    // the real clock, which this move shifts).
    record: withNextDue(later.record),
    history: [...current.history, ...later.history.map((entry) => ({ ...entry, simulated: true }))],
  };
};

/** Drops keys whose value is undefined, so stored JSON and output carry only given fields. */
const compact = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
