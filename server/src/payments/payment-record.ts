import type {
  Account,
  FlowType,
  HistoryRecord,
  IsoCode,
  MockBankScenario,
  PaymentRecord,
  PaymentStatus,
  ReasonCode,
  ResolvedTiming,
} from '@pis/shared';
import { Payment, PaymentHistory } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

/**
 * The one mapping between rows and the shared `PaymentRecord`. Lifecycle decisions are made on
 * records; rows are only read into records and written from them here: as ORM entities on the
 * locked write path, as raw SQL rows on the hot paths (one GET, one create: a single statement
 * each, because the ORM's per-query work was most of their CPU; see `npm run bench`).
 */

export function toPaymentRecord(row: Payment): PaymentRecord {
  return {
    id: row.id,
    organizationId: row.organization,
    status: row.status,
    isoCode: row.isoCode,
    isoReason: row.isoReason ?? null,
    provider: row.provider,
    bankId: row.bankId ?? null,
    amount: { value: row.amountValue, currency: row.currency },
    fromAccount: row.fromAccount ?? null,
    toAccount: row.toAccount,
    reference: { reference: row.reference, endToEndId: row.endToEndId },
    flowType: row.flowType,
    returnUrl: row.returnUrl ?? null,
    mockBank: row.mockBank ?? null,
    approvedAt: row.approvedAt ?? null,
    timing: row.timing ?? null,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? null } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    expiresAt: row.expiresAt,
    completedAt: row.completedAt ?? null,
    nextDueAt: row.nextDueAt ?? null,
  };
}

export function toHistoryRecord(row: PaymentHistory): HistoryRecord {
  return {
    status: row.status,
    isoCode: row.isoCode,
    isoReason: row.isoReason ?? null,
    provider: row.provider ?? null,
    details: row.details ?? null,
    timestamp: row.timestamp,
  };
}

/** A new payment row: the only place the merchant's immutable fields are written. */
export function insertPaymentRow(em: EntityManager, record: PaymentRecord): Payment {
  return em.create(Payment, {
    id: record.id,
    organization: record.organizationId,
    provider: record.provider,
    amountValue: record.amount.value,
    currency: record.amount.currency,
    fromAccount: record.fromAccount,
    toAccount: record.toAccount,
    reference: record.reference.reference,
    endToEndId: record.reference.endToEndId,
    flowType: record.flowType,
    returnUrl: record.returnUrl,
    mockBank: record.mockBank,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt,
    ...lifecycleState(record),
    version: 1,
  });
}

/**
 * Writes what a lifecycle step may change onto a loaded row. Amount, accounts, reference and
 * the merchant's choices are not in this list: after creation nothing can change them.
 */
export function writeLifecycleState(row: Payment, record: PaymentRecord): void {
  Object.assign(row, lifecycleState(record));
}

const lifecycleState = (record: PaymentRecord) => ({
  status: record.status,
  isoCode: record.isoCode,
  isoReason: record.isoReason,
  bankId: record.bankId,
  approvedAt: record.approvedAt,
  timing: record.timing,
  errorCode: record.error?.code ?? null,
  errorMessage: record.error?.message ?? null,
  updatedAt: record.updatedAt,
  completedAt: record.completedAt,
  nextDueAt: record.nextDueAt,
});

/** Appends history entries after the `existing` ones (seq 1, 2, ... per payment). */
export function insertHistoryRows(
  em: EntityManager,
  paymentId: string,
  existing: number,
  entries: readonly HistoryRecord[],
): void {
  entries.forEach((entry, index) => {
    em.create(PaymentHistory, {
      payment: paymentId,
      seq: existing + index + 1,
      status: entry.status,
      isoCode: entry.isoCode,
      isoReason: entry.isoReason,
      provider: entry.provider,
      details: entry.details,
      timestamp: entry.timestamp,
    });
  });
}

const PAYMENT_COLUMNS = `p.id, p.organization_id, p.status, p.iso_code, p.iso_reason, p.provider, p.bank_id,
      p.amount_value::text as amount_value, p.currency, p.from_account, p.to_account, p.reference,
      p.end_to_end_id, p.flow_type, p.return_url, p.mock_bank, p.approved_at, p.timing,
      p.error_code, p.error_message, p.created_at, p.updated_at, p.expires_at, p.completed_at,
      p.next_due_at`;

/** A payment row `p` without its history as one JSON value (a `PaymentJson` less `history`). */
export const PAYMENT_ROW_JSON = `(select row_to_json(x) from (select ${PAYMENT_COLUMNS}) x)`;

/**
 * A payment row `p` and its history (oldest first) as one JSON value, a `PaymentJson`. The
 * amount goes as text (JSON numbers would lose `10.50`'s digits); timestamps come as ISO 8601
 * strings. `json`, not `jsonb`: Postgres builds it for a fraction of the CPU.
 */
export const PAYMENT_JSON = `(select row_to_json(x) from (
    select ${PAYMENT_COLUMNS},
      coalesce(
        (select json_agg(h order by h.seq) from payment_history h where h.payment_id = p.id),
        '[]'
      ) as history
  ) x)`;

/** Parameters: the payment id, then the organization id twice (null for any organization). */
export const SELECT_PAYMENT_WITH_HISTORY = {
  name: 'payment_with_history',
  sql: `select ${PAYMENT_JSON} as payment from payment p
    where p.id = ? and (?::text is null or p.organization_id = ?)`,
};

/** A `payment` row as JSON (see PAYMENT_JSON). */
export interface PaymentJson {
  id: string;
  organization_id: string;
  status: PaymentStatus;
  iso_code: IsoCode;
  iso_reason: ReasonCode | null;
  provider: string;
  bank_id: string | null;
  amount_value: string;
  currency: string;
  from_account: Account | null;
  to_account: Account;
  reference: string;
  end_to_end_id: string;
  flow_type: FlowType;
  return_url: string | null;
  mock_bank: MockBankScenario | null;
  approved_at: string | null;
  timing: ResolvedTiming | null;
  error_code: string | null;
  error_message: string | null;
  created_at: string;
  updated_at: string;
  expires_at: string;
  completed_at: string | null;
  next_due_at: string | null;
  history: HistoryJson[];
}

/** A `payment_history` row as JSON. */
export interface HistoryJson {
  status: PaymentStatus;
  iso_code: IsoCode;
  iso_reason: ReasonCode | null;
  provider: string | null;
  details: string | null;
  timestamp: string;
}

const date = (text: string) => new Date(text);
const optionalDate = (text: string | null) => (text === null ? null : new Date(text));

export function paymentRecordFromJson(row: Omit<PaymentJson, 'history'>): PaymentRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    status: row.status,
    isoCode: row.iso_code,
    isoReason: row.iso_reason,
    provider: row.provider,
    bankId: row.bank_id,
    amount: { value: row.amount_value, currency: row.currency },
    fromAccount: row.from_account,
    toAccount: row.to_account,
    reference: { reference: row.reference, endToEndId: row.end_to_end_id },
    flowType: row.flow_type,
    returnUrl: row.return_url,
    mockBank: row.mock_bank,
    approvedAt: optionalDate(row.approved_at),
    timing: row.timing,
    error: row.error_code ? { code: row.error_code, message: row.error_message } : null,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
    expiresAt: date(row.expires_at),
    completedAt: optionalDate(row.completed_at),
    nextDueAt: optionalDate(row.next_due_at),
  };
}

export function historyRecordFromJson(entry: HistoryJson): HistoryRecord {
  return {
    status: entry.status,
    isoCode: entry.iso_code,
    isoReason: entry.iso_reason,
    provider: entry.provider,
    details: entry.details,
    timestamp: date(entry.timestamp),
  };
}

/**
 * A new payment with its first history entries as one statement: one round trip, and one
 * transaction by itself. Data-modifying CTEs share one snapshot; the history's foreign key is
 * checked at the end of the statement, when the payment row is in.
 */
export function insertPaymentSql(
  record: PaymentRecord,
  history: readonly HistoryRecord[],
): { statement: { name: string; sql: string }; values: unknown[] } {
  const state = lifecycleState(record);
  const values: unknown[] = [
    record.id,
    record.organizationId,
    state.status,
    state.isoCode,
    state.isoReason,
    record.provider,
    state.bankId,
    record.amount.value,
    record.amount.currency,
    json(record.fromAccount),
    json(record.toAccount),
    record.reference.reference,
    record.reference.endToEndId,
    record.flowType,
    record.returnUrl,
    json(record.mockBank),
    timestamp(state.approvedAt),
    json(state.timing),
    state.errorCode,
    state.errorMessage,
    timestamp(record.createdAt),
    timestamp(state.updatedAt),
    timestamp(record.expiresAt),
    timestamp(state.completedAt),
    timestamp(state.nextDueAt),
  ];
  history.forEach((entry, index) => {
    values.push(
      record.id,
      index + 1,
      entry.status,
      entry.isoCode,
      entry.isoReason,
      entry.provider,
      entry.details,
      entry.timestamp.toISOString(),
    );
  });
  return { statement: insertPaymentStatement(history.length), values };
}

/** One statement per number of history entries (1 or 2 in practice), built once each. */
const insertPaymentStatements = new Map<number, { name: string; sql: string }>();

function insertPaymentStatement(historyEntries: number): { name: string; sql: string } {
  let statement = insertPaymentStatements.get(historyEntries);
  if (!statement) {
    const rows = Array.from({ length: historyEntries }, () => '(?, ?, ?, ?, ?, ?, ?, ?::timestamptz)');
    statement = {
      name: `insert_payment_with_history_${historyEntries}`,
      sql: `
        with new_payment as (
          insert into payment (id, organization_id, status, iso_code, iso_reason, provider, bank_id,
            amount_value, currency, from_account, to_account, reference, end_to_end_id, flow_type,
            return_url, mock_bank, approved_at, timing, error_code, error_message, created_at,
            updated_at, expires_at, completed_at, next_due_at, version)
          values (?, ?, ?, ?, ?, ?, ?, ?::numeric, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?::jsonb,
            ?::timestamptz, ?::jsonb, ?, ?, ?::timestamptz, ?::timestamptz, ?::timestamptz,
            ?::timestamptz, ?::timestamptz, 1)
        )
        insert into payment_history (payment_id, seq, status, iso_code, iso_reason, provider, details, timestamp)
        values ${rows.join(', ')}`,
    };
    insertPaymentStatements.set(historyEntries, statement);
  }
  return statement;
}

/** Values for `::jsonb` and `::timestamptz` parameters (null stays SQL null). */
const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));
const timestamp = (value: Date | null) => (value === null ? null : value.toISOString());

/**
 * Many payments' lifecycle steps in two statements (the worker's batch catch-up, under the rows'
 * locks, inside its transaction): the same columns as `writeLifecycleState`, `version` moved on
 * as the ORM would, and the new history rows after each payment's `lastSeq`. For ten thousand
 * steps due at once, entities cost most of the time (hydrating, diffing and flushing each).
 */
export async function writeLifecycleSteps(
  em: EntityManager,
  steps: readonly { record: PaymentRecord; lastSeq: number; history: readonly HistoryRecord[] }[],
): Promise<void> {
  if (steps.length === 0) return;
  const states = steps.map(({ record }) => {
    const state = lifecycleState(record);
    return {
      id: record.id,
      status: state.status,
      iso_code: state.isoCode,
      iso_reason: state.isoReason,
      bank_id: state.bankId,
      approved_at: state.approvedAt,
      timing: state.timing,
      error_code: state.errorCode,
      error_message: state.errorMessage,
      updated_at: state.updatedAt,
      completed_at: state.completedAt,
      next_due_at: state.nextDueAt,
    };
  });
  await em.execute(UPDATE_LIFECYCLE_STEPS, [JSON.stringify(states)], 'run');
  const history = steps.flatMap(({ record, lastSeq, history: entries }) =>
    entries.map((entry, index) => ({
      payment_id: record.id,
      seq: lastSeq + index + 1,
      status: entry.status,
      iso_code: entry.isoCode,
      iso_reason: entry.isoReason,
      provider: entry.provider,
      details: entry.details,
      timestamp: entry.timestamp,
    })),
  );
  if (history.length > 0) await em.execute(INSERT_HISTORY_ROWS, [JSON.stringify(history)], 'run');
}

const UPDATE_LIFECYCLE_STEPS = `
  update payment p set status = s.status, iso_code = s.iso_code, iso_reason = s.iso_reason,
    bank_id = s.bank_id, approved_at = s.approved_at, timing = s.timing, error_code = s.error_code,
    error_message = s.error_message, updated_at = s.updated_at, completed_at = s.completed_at,
    next_due_at = s.next_due_at, version = p.version + 1
  from json_to_recordset(?::json) as s(id text, status text, iso_code text, iso_reason text,
    bank_id text, approved_at timestamptz, timing jsonb, error_code text, error_message text,
    updated_at timestamptz, completed_at timestamptz, next_due_at timestamptz)
  where p.id = s.id`;

const INSERT_HISTORY_ROWS = `
  insert into payment_history (payment_id, seq, status, iso_code, iso_reason, provider, details, timestamp)
  select h.payment_id, h.seq, h.status, h.iso_code, h.iso_reason, h.provider, h.details, h.timestamp
  from json_to_recordset(?::json) as h(payment_id text, seq int, status text, iso_code text,
    iso_reason text, provider text, details text, timestamp timestamptz)`;
