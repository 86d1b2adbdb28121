import type {
  Amount,
  Change,
  HistoryRecord,
  ListPaymentsQuery,
  PaymentError,
  PaymentMode,
  PaymentRecord,
  PaymentStatus,
  Reference,
  VolumeDay,
} from '@pis/shared';
import { isTerminal, MOCK_PROVIDER, searchedAmount, TERMINAL_STATUSES } from '@pis/shared';
import type { z } from 'zod';
import type { KeyPreload } from '../auth/authenticate-api-key.ts';
import type { ProviderClaimAction } from '../db/entities/provider-claim.entity.ts';
import { affectedRows, type EntityManager } from '../db/orm.ts';
import { preparedQuery } from '../db/prepared-query.ts';

/**
 * The payment store: the only module with payment SQL (docs/decisions/018-one-payment-store.md).
 * Every statement is derived from the two tables below (record field, column, SQL type): the
 * select list, the JSON decoding, the insert and the batch update. Adding a column is a
 * migration, the entity, and one line here.
 *
 * Plain SQL text built once per statement rather than Kysely (`em.getKysely()`): every hot
 * statement is a named prepared statement (db/prepared-query.ts) made of JSON built in Postgres
 * (`row_to_json`, `json_agg`), which a query builder would only spell differently.
 */

type SqlType = 'text' | 'numeric' | 'jsonb' | 'timestamptz' | 'integer' | 'boolean';

/** A record field by its path: top-level, or one level into a group stored as flat columns. */
type PaymentPath =
  | Exclude<keyof PaymentRecord, 'amount' | 'reference' | 'error'>
  | `amount.${keyof Amount}`
  | `reference.${keyof Reference}`
  | `error.${keyof PaymentError}`;

interface Column<P extends string> {
  path: P;
  column: string;
  type: SqlType;
  /** A lifecycle step may change it (the batch update writes these); the rest is fixed at creation. */
  step: boolean;
}

const STEP = true;
const col = <P extends string>(path: P, column: string, type: SqlType, step = false): Column<P> => ({
  path,
  column,
  type,
  step,
});

/** `payment`'s columns (the entity and its migrations are the schema; this is how records map to it). */
const PAYMENT_COLUMNS = [
  col('id', 'id', 'text'),
  col('organizationId', 'organization_id', 'text'),
  col('mode', 'mode', 'text'),
  col('status', 'status', 'text', STEP),
  col('isoCode', 'iso_code', 'text', STEP),
  col('isoReason', 'iso_reason', 'text', STEP),
  col('provider', 'provider', 'text'),
  col('bankId', 'bank_id', 'text', STEP),
  col('amount.value', 'amount_value', 'numeric'),
  col('amount.currency', 'currency', 'text'),
  col('fromAccount', 'from_account', 'jsonb'),
  col('toAccount', 'to_account', 'jsonb'),
  col('reference.reference', 'reference', 'text'),
  col('reference.endToEndId', 'end_to_end_id', 'text'),
  col('flowType', 'flow_type', 'text'),
  col('returnUrl', 'return_url', 'text'),
  col('mockBank', 'mock_bank', 'jsonb'),
  col('approvedAt', 'approved_at', 'timestamptz', STEP),
  col('timing', 'timing', 'jsonb', STEP),
  col('error.code', 'error_code', 'text', STEP),
  col('error.message', 'error_message', 'text', STEP),
  col('createdAt', 'created_at', 'timestamptz'),
  col('updatedAt', 'updated_at', 'timestamptz', STEP),
  col('expiresAt', 'expires_at', 'timestamptz'),
  col('completedAt', 'completed_at', 'timestamptz', STEP),
  col('nextDueAt', 'next_due_at', 'timestamptz', STEP),
  col('providerStatus', 'provider_status', 'jsonb', STEP),
  col('clockOffsetSeconds', 'clock_offset_seconds', 'integer', STEP),
] as const satisfies readonly Column<PaymentPath>[];

/** `payment_history`'s columns besides its key (`payment_id`, `seq`). */
const HISTORY_COLUMNS = [
  col('status', 'status', 'text'),
  col('isoCode', 'iso_code', 'text'),
  col('isoReason', 'iso_reason', 'text'),
  col('provider', 'provider', 'text'),
  col('details', 'details', 'text'),
  col('timestamp', 'timestamp', 'timestamptz'),
  col('simulated', 'simulated', 'boolean'),
  col('actor', 'actor', 'jsonb'),
] as const satisfies readonly Column<keyof HistoryRecord>[];

// A record field without a column (or a column without a field) does not compile.
type Head<P> = P extends `${infer H}.${string}` ? H : P;
type Unmapped<R, C extends readonly Column<string>[]> = Exclude<keyof R, Head<C[number]['path']>>;
const everyPaymentField: [Unmapped<PaymentRecord, typeof PAYMENT_COLUMNS>] extends [never] ? true : never =
  true;
const everyHistoryField: [Unmapped<HistoryRecord, typeof HISTORY_COLUMNS>] extends [never] ? true : never =
  true;
void everyPaymentField;
void everyHistoryField;

/** For tests: the columns this module maps, to compare with the entity's. */
export const mappedColumns = {
  payment: PAYMENT_COLUMNS.map((c) => c.column),
  history: HISTORY_COLUMNS.map((c) => c.column),
};

// ---- Derived once: reading a field, decoding JSON, SQL fragments ----

type Row = Record<string, unknown>;

const fieldReader = (path: string): ((record: object) => unknown) => {
  const [group, field] = path.split('.') as [string, string | undefined];
  return field === undefined
    ? (record) => (record as Row)[group]
    : (record) => ((record as Row)[group] as Row | null)?.[field] ?? null;
};

const fromJson: Record<SqlType, (value: unknown) => unknown> = {
  text: (value) => value,
  // Selected as text (see selectList): a JSON number would lose `10.50`'s digits.
  numeric: (value) => value,
  jsonb: (value) => value,
  timestamptz: (value) => (value === null ? null : new Date(value as string)),
  integer: (value) => value,
  boolean: (value) => value,
};

/** A JSON object keyed by column (row_to_json's) -> the record. A group whose fields are all null is null. */
function jsonDecoder<R>(columns: readonly Column<string>[]): (json: Row) => R {
  const groups = new Set<string>();
  const steps = columns.map(({ path, column, type }) => {
    const parse = fromJson[type];
    const [group, field] = path.split('.') as [string, string | undefined];
    if (field === undefined) {
      return (json: Row, record: Row) => {
        record[group] = parse(json[column]);
      };
    }
    groups.add(group);
    return (json: Row, record: Row) => {
      if (record[group] === undefined) record[group] = {};
      (record[group] as Row)[field] = parse(json[column]);
    };
  });
  const nullable = [...groups];
  return (json) => {
    const record: Row = {};
    for (const step of steps) step(json, record);
    for (const group of nullable) {
      if (Object.values(record[group] as Row).every((value) => value === null)) record[group] = null;
    }
    return record as R;
  };
}

const toParameter: Record<SqlType, (value: unknown) => unknown> = {
  text: (value) => value,
  numeric: (value) => value,
  jsonb: (value) => (value === null || value === undefined ? null : JSON.stringify(value)),
  timestamptz: (value) => (value === null ? null : (value as Date).toISOString()),
  integer: (value) => value,
  boolean: (value) => value,
};

/**
 * Every parameter typed, text too: an untyped one takes its column's type, and a domain's
 * (Migration20261129120000_payment_value_domains) would run the domain's input check at each
 * bind as well as the insert's own.
 */
const castOf = (type: SqlType) => `?::${type}`;

const decodePayment = jsonDecoder<PaymentRecord>(PAYMENT_COLUMNS);
const decodeHistory = jsonDecoder<HistoryRecord>(HISTORY_COLUMNS);
const paymentReaders = PAYMENT_COLUMNS.map((c) => ({ ...c, read: fieldReader(c.path) }));
const stepColumns = paymentReaders.filter((c) => c.step);
const historyReaders = HISTORY_COLUMNS.map((c) => ({ ...c, read: fieldReader(c.path) }));

const selectList = PAYMENT_COLUMNS.map(({ column, type }) =>
  type === 'numeric' ? `p.${column}::text as ${column}` : `p.${column}`,
).join(', ');

/** A payment row `p` without its history as one JSON value. */
const PAYMENT_ROW_JSON = `(select row_to_json(x) from (select ${selectList}) x)`;

/** A payment row `p`'s history, oldest first, as one JSON array (empty without entries). */
const HISTORY_JSON = `coalesce(
    (select json_agg(h order by h.seq) from payment_history h where h.payment_id = p.id), '[]')`;

/**
 * A payment row `p` and its history (oldest first) as one JSON value. Timestamps come as ISO
 * 8601 strings. `json`, not `jsonb`: Postgres builds it for a fraction of the CPU.
 */
const PAYMENT_JSON = `(select row_to_json(x) from (select ${selectList}, ${HISTORY_JSON} as history) x)`;

/** What the one-trip reads return: a payment row with its history, as JSON. */
export type PaymentJson = Row & { history: Row[] };

/**
 * Which build's answers a stored one is (payment_answer.format). Raise it with any change to the
 * answer a stored payment gets (its fields, their order or format, shared's ISO status texts, how
 * the store decodes a row): answers stored by an earlier build are then never sent, not even
 * while both builds run during a rolling deploy (`payment-answer.test.ts` fails until it is).
 */
export const ANSWER_FORMAT = 1;

/**
 * From a payment row `p`: its answer and ETag as stored for its current version by this build
 * (`s`, nulls when there are none). Every change of a payment moves its `version` on (a write
 * that did not is moved on by a trigger: Migration20261129090000_payment_answer), so an answer
 * stored before a change is never found after it.
 */
const CURRENT_ANSWER = `left join lateral (select a.answer, a.etag from payment_answer a
    where a.payment_id = p.id and a.version = p.version and a.format = ${ANSWER_FORMAT}) s on true`;

/** The payment's columns and version, and its history only when no answer is stored (to make it from). */
const PAYMENT_READ_FIELDS = `${selectList}, p.version, case when s.answer is null then ${HISTORY_JSON} end as history`;

/** The finished statuses as a SQL list: `p.status in (${FINISHED_LIST})`. */
const FINISHED_LIST = TERMINAL_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * When the stored answer comes without the payment's columns (a `quiet` read): a finished payment
 * never changes again, and a Mock bank payment changes only by its own timeline, at `next_due_at`,
 * which the read compares with its clock (read-payment.ts). Any other may have news at its bank,
 * which the refresh asks with the whole record.
 */
const QUIET_WITH_ANSWER = `s.answer is not null and (p.status in (${FINISHED_LIST}) or p.provider = '${MOCK_PROVIDER}')`;
const QUIET_FIELDS = `'quiet', true, 'version', p.version, 'status', p.status, 'next_due_at', p.next_due_at`;

/** GET /payments/{id}'s read: the payment, and its answer as stored or the history to make it from. */
export type PaymentRead =
  | { record: PaymentRecord; version: number; stored: StoredAnswer; history?: undefined }
  | { record: PaymentRecord; version: number; stored: null; history: HistoryRecord[] }
  | QuietPaymentRead;

/** A stored answer with only what tells whether it is still the payment's (QUIET_WITH_ANSWER). */
export interface QuietPaymentRead {
  quiet: true;
  version: number;
  status: PaymentStatus;
  /** On the real clock; null once finished. */
  nextDueAt: Date | null;
  stored: StoredAnswer;
}

/** An answer as stored: the JSON text GET /payments/{id} sends and its ETag. */
export interface StoredAnswer {
  text: string;
  etag: string;
}

/** What a read statement returns (or none) as records; the stored answer in `json` or beside it. */
export function decodePaymentRead(
  json: Row | null | undefined,
  beside?: { answer: string | null; etag: string | null },
): PaymentRead | null {
  if (!json) return null;
  const version = json.version as number;
  const { answer, etag } = (beside ?? json) as { answer: string | null; etag: string | null };
  const stored = answer !== null && etag !== null ? { text: answer, etag } : null;
  if (json.quiet === true && stored) {
    const nextDueAt = fromJson.timestamptz(json.next_due_at) as Date | null;
    return { quiet: true, version, status: json.status as PaymentStatus, nextDueAt, stored };
  }
  const record = decodePayment(json);
  if (stored) return { record, version, stored };
  return { record, version, stored: null, history: (json.history as Row[]).map(decodeHistory) };
}

export interface LoadedPayment {
  record: PaymentRecord;
  /** Every entry, oldest first. */
  history: HistoryRecord[];
}

/** A PaymentJson (or none) as records. */
export function decodeLoadedPayment(json: PaymentJson | null | undefined): LoadedPayment | null {
  if (!json) return null;
  return { record: decodePayment(json), history: json.history.map(decodeHistory) };
}

// ---- Reads ----

/**
 * Which payment an operation is about. Merchant operations name their organization, so another
 * organization's payment is "not found"; the pages (holding a signed link) and the worker don't.
 */
export interface PaymentScope {
  paymentId: string;
  organizationId?: string | undefined;
  /** A merchant's key sees only its mode's payments: another mode's is "not found". */
  mode?: PaymentMode | undefined;
}

const SELECT_PAYMENT = {
  name: 'payment_with_history_in_mode',
  sql: `select ${PAYMENT_JSON} as payment from payment p
    where p.id = ? and (?::text is null or p.organization_id = ?) and (?::text is null or p.mode = ?)`,
};

// The stored answer's text beside the row's JSON, not in it (it would be escaped and parsed again).
const SELECT_PAYMENT_READ = {
  name: `payment_read_in_mode_${ANSWER_FORMAT}`,
  sql: `select case when ${QUIET_WITH_ANSWER} then json_build_object(${QUIET_FIELDS})
      else (select row_to_json(x) from (select ${PAYMENT_READ_FIELDS}) x) end as payment, s.answer, s.etag
    from payment p ${CURRENT_ANSWER}
    where p.id = ? and p.organization_id = ? and p.mode = ?`,
};

/** GET /payments/{id}'s read without locking, or null: one prepared statement (the read every poll makes). */
export async function loadPaymentReadIfAny(
  em: EntityManager,
  scope: PaymentScope & { organizationId: string; mode: PaymentMode },
): Promise<PaymentRead | null> {
  const [row] = await preparedQuery<{ payment: Row; answer: string | null; etag: string | null }>(
    em,
    SELECT_PAYMENT_READ,
    [scope.paymentId, scope.organizationId, scope.mode],
  );
  return row ? decodePaymentRead(row.payment, row) : null;
}

const STORE_ANSWER = {
  name: 'store_payment_answer',
  sql: `insert into payment_answer (payment_id, version, format, answer, etag) values (?, ?, ?, ?, ?)
    on conflict (payment_id) do update
      set version = excluded.version, format = excluded.format, answer = excluded.answer, etag = excluded.etag
      where payment_answer.version < excluded.version
        or (payment_answer.version = excluded.version and payment_answer.format < excluded.format)`,
};

/**
 * Keeps the answer made for a payment's `version`: the next reads of that version send it as it
 * is. Never over one of a later version, nor over a later build's (during a rolling deploy the
 * earlier build makes its own each time). A payment deleted meanwhile (an unsent one) keeps none.
 */
export async function storePaymentAnswer(
  em: EntityManager,
  paymentId: string,
  version: number,
  answer: StoredAnswer,
): Promise<void> {
  await preparedQuery(em, STORE_ANSWER, [paymentId, version, ANSWER_FORMAT, answer.text, answer.etag]);
}

/**
 * How long a finished payment's answer stays stored. A payment is polled while it moves and in
 * the minutes after it finished; past that its answer is one ~1.5 KB row per payment kept for
 * good (2.1 GB per million, docs/capacity.md) for reads that hardly come. Such a read makes the
 * answer again (the same bytes and ETag) and does not store it (read-payment.ts).
 */
export const FINISHED_ANSWER_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
const PURGE_ANSWERS_SLICE = 5_000;

/** Whether a payment's answer is worth storing at `now` (not finished past FINISHED_ANSWER_KEPT_MS). */
export function answerKept(record: Pick<PaymentRecord, 'status' | 'updatedAt'>, now: Date): boolean {
  return !isTerminal(record.status) || record.updatedAt.getTime() > now.getTime() - FINISHED_ANSWER_KEPT_MS;
}

/**
 * Deletes the stored answers of payments finished past FINISHED_ANSWER_KEPT_MS (workers'
 * housekeeping, hourly: it reads every stored answer), in slices of short transactions, skipping
 * rows another worker's purge holds; resolves to how many went. A finished payment never changes
 * again, so its `updated_at` is when it finished.
 */
export async function purgeFinishedAnswers(em: EntityManager, now: Date): Promise<number> {
  const finishedBefore = new Date(now.getTime() - FINISHED_ANSWER_KEPT_MS);
  let purged = 0;
  for (;;) {
    const gone = await em
      .fork()
      .getConnection()
      .execute<{ payment_id: string }[]>(
        `delete from payment_answer where payment_id in (
        select a.payment_id from payment_answer a join payment p on p.id = a.payment_id
        where p.status in (${FINISHED_LIST}) and p.updated_at < ?
        limit ${PURGE_ANSWERS_SLICE} for update of a skip locked)
       returning payment_id`,
        [finishedBefore],
      );
    purged += gone.length;
    if (gone.length < PURGE_ANSWERS_SLICE) return purged;
  }
}

/** A payment and its history without locking, or null: one prepared statement. */
export async function loadPaymentIfAny(
  em: EntityManager,
  scope: PaymentScope,
): Promise<LoadedPayment | null> {
  const organizationId = scope.organizationId ?? null;
  const mode = scope.mode ?? null;
  const [row] = await preparedQuery<{ payment: PaymentJson }>(em, SELECT_PAYMENT, [
    scope.paymentId,
    organizationId,
    organizationId,
    mode,
    mode,
  ]);
  return decodeLoadedPayment(row?.payment);
}

/**
 * GET /payments/{id}'s read as a preload of the API key lookup (one round trip for both; see
 * KeyPreload): the key's organization's payment with this id (decodePaymentRead), or null.
 */
export const paymentPreload = (paymentId: string): KeyPreload => ({
  name: `payment_read_${ANSWER_FORMAT}`,
  sql: `select case when ${QUIET_WITH_ANSWER}
      then json_build_object(${QUIET_FIELDS}, 'answer', s.answer, 'etag', s.etag)
      else (select row_to_json(x) from (select ${PAYMENT_READ_FIELDS}, s.answer, s.etag) x) end
    from payment p ${CURRENT_ANSWER}
    where p.id = ? and p.organization_id = k.organization_id and p.mode = k.mode`,
  values: [paymentId],
});

export type ListFilters = Pick<
  z.output<typeof ListPaymentsQuery>,
  'status' | 'provider' | 'search' | 'createdFrom' | 'createdTo' | 'currency' | 'limit' | 'offset'
> & { mode?: PaymentMode | undefined };

/** The filters a list, its total and an export share; `mode` is the key's (test when absent). */
export type PaymentFilterValues = Omit<ListFilters, 'limit' | 'offset'> & { mode?: PaymentMode | undefined };

/** `%`, `_` and `\` taken literally in an `ilike` pattern (backslash is its default escape). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (match) => `\\${match}`);

/**
 * The where clause of a filter combination and its values. Each combination is its own prepared
 * statement (named by its letters), so each keeps a plan that uses its index: the list's
 * (organization, [status | provider,] created_at, id) indexes, the end-to-end id btree and the
 * trigram GIN indexes for `search` (Migration20261125150000_payment_search).
 */
export function paymentFilter(
  organizationId: string,
  filters: PaymentFilterValues,
): { key: string; where: string; values: unknown[] } {
  let key = '';
  let where = 'p.organization_id = ? and p.mode = ?';
  const values: unknown[] = [organizationId, filters.mode ?? 'test'];
  if (filters.status) {
    key += 's';
    where += ' and p.status = ?';
    values.push(filters.status);
  }
  if (filters.provider) {
    key += 'p';
    where += ' and p.provider = ?';
    values.push(filters.provider);
  }
  if (filters.currency) {
    key += 'c';
    where += ' and p.currency = ?';
    values.push(filters.currency);
  }
  if (filters.createdFrom) {
    key += 'f';
    where += ' and p.created_at >= ?::timestamptz';
    values.push(filters.createdFrom);
  }
  if (filters.createdTo) {
    key += 't';
    where += ' and p.created_at <= ?::timestamptz';
    values.push(filters.createdTo);
  }
  if (filters.search) {
    key += 'q';
    // A payment id or end-to-end id exactly; part of a reference or payee name ignoring case.
    // An amount exactly too, when the search is one (issue 34 item 8; its own statement, key `qa`).
    const amount = searchedAmount(filters.search);
    if (amount !== null) key += 'a';
    where += ` and (p.id = ? or p.end_to_end_id = ? or p.reference ilike ? or (p.to_account ->> 'accountName') ilike ?${amount === null ? '' : ' or p.amount_value = ?::numeric'})`;
    const pattern = `%${likeLiteral(filters.search)}%`;
    values.push(filters.search, filters.search, pattern, pattern, ...(amount === null ? [] : [amount]));
  }
  return { key, where, values };
}

/** Test payments by status and provider only: the kept counts answer the total (payment-totals.ts). */
export const countedByKeptTotals = (filters: PaymentFilterValues): boolean =>
  (filters.mode ?? 'test') === 'test' &&
  !filters.search &&
  !filters.createdFrom &&
  !filters.createdTo &&
  !filters.currency;

/**
 * A page of `source` (rows with id and created_at), newest first, made into JSON only for the
 * page's rows: Postgres projects every row an offset skips, so a deep page built as one
 * `select <json> ... offset 9980` would read 10,000 histories to return 20.
 */
export const pageSql = (source: string) => `
  select ${PAYMENT_JSON} as payment
  from (select id, created_at from ${source} order by created_at desc, id desc limit ? offset ?) m
  join payment p on p.id = m.id
  order by m.created_at desc, m.id desc`;

/**
 * A search's page: the matches first (a bitmap over the search indexes), then the newest of them.
 * Written as one `select ... order by created_at desc limit 20`, Postgres guesses that a `%term%`
 * matches a good share of the rows and walks the organization's created_at index backwards
 * hoping to meet 20 soon: for a rare term that is every row of a big merchant. The materialized
 * CTE makes it collect the matches first (the count reads the same bitmap anyway).
 */
export const searchPageSql = (where: string) =>
  `with matched as materialized (select p.id, p.created_at from payment p where ${where})${pageSql('matched')}`;

/** A page of an organization's payments with their histories, newest first (created_at, then id). */
export async function listPaymentPage(
  em: EntityManager,
  organizationId: string,
  filters: ListFilters,
): Promise<LoadedPayment[]> {
  const { key, where, values } = paymentFilter(organizationId, filters);
  const rows = await preparedQuery<{ payment: PaymentJson }>(
    em,
    {
      name: `payment_page_${key}`,
      sql: filters.search ? searchPageSql(where) : pageSql(`payment p where ${where}`),
    },
    [...values, filters.limit, filters.offset],
  );
  return rows.map((row) => decodeLoadedPayment(row.payment) as LoadedPayment);
}

/**
 * How many payments match filters the kept counts cannot answer (a search, a date range, a
 * currency): counted from the same indexes as the page, exact.
 */
export async function countFilteredPayments(
  em: EntityManager,
  organizationId: string,
  filters: PaymentFilterValues,
): Promise<number> {
  const { key, where, values } = paymentFilter(organizationId, filters);
  const [row] = await preparedQuery<{ count: string }>(
    em,
    { name: `payment_count_${key}`, sql: `select count(*) as count from payment p where ${where}` },
    values,
  );
  return Number(row?.count ?? 0);
}

/** Where an export page ends: the next page starts strictly before it (newest first). */
export interface ExportCursor {
  createdAt: string;
  id: string;
}

/** One row of an export: the payment's columns only (an export shows no history). */
export interface ExportedPayment {
  record: PaymentRecord;
  cursor: ExportCursor;
}

/**
 * One keyset page of an export, newest first: `(created_at, id) < cursor`, so each page is an
 * index range however deep the export is (an offset would re-walk every earlier row), and
 * nothing is held open between pages (no cursor, no transaction).
 */
export async function exportPaymentPage(
  em: EntityManager,
  organizationId: string,
  filters: PaymentFilterValues,
  after: ExportCursor | null,
  limit: number,
): Promise<ExportedPayment[]> {
  const { key, where, values } = paymentFilter(organizationId, filters);
  const keyset = after ? ' and (p.created_at, p.id) < (?::timestamptz, ?)' : '';
  const rows = await preparedQuery<{ payment: Row; created: string }>(
    em,
    {
      name: `payment_export_${key}${after ? '_after' : ''}`,
      sql: `select ${PAYMENT_ROW_JSON} as payment, p.created_at::text as created from payment p
        where ${where}${keyset} order by p.created_at desc, p.id desc limit ?`,
    },
    [...values, ...(after ? [after.createdAt, after.id] : []), limit],
  );
  return rows.map((row) => {
    const record = decodePayment(row.payment);
    // The exact timestamp as Postgres has it (microseconds): a JS Date would round to ms and skip rows.
    return { record, cursor: { createdAt: row.created, id: record.id } };
  });
}

/** Ids of payments whose `next_due_at` is at or before `now` (of one organization, or all), oldest due first. */
export async function duePaymentIds(
  em: EntityManager,
  now: Date,
  limit: number,
  organizationId?: string,
): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select p.id from payment p where p.next_due_at <= ?::timestamptz${
      organizationId === undefined ? '' : ' and p.organization_id = ?'
    } order by p.next_due_at limit ?`,
    [now.toISOString(), ...(organizationId === undefined ? [] : [organizationId]), limit],
  );
  return rows.map((row) => row.id);
}

// ---- Create ----

const HISTORY_KEY = ['payment_id', 'seq'];
/** Chooses the kept counts' row path for the rest of the transaction (see insertPayment). */
const CHOOSE_ROW_PATH = `set_config('pis.counts', 'row', true) = 'row'`;

/** One statement per number of history entries (1 or 2 in practice), built once each. */
const insertStatements = new Map<number, { name: string; sql: string }>();

function insertStatement(historyEntries: number): { name: string; sql: string } {
  let statement = insertStatements.get(historyEntries);
  if (!statement) {
    const historyRow = `(?, ?, ${HISTORY_COLUMNS.map((c) => castOf(c.type)).join(', ')})`;
    statement = {
      name: `insert_payment_with_history_${historyEntries}`,
      sql: `
        with new_payment as (
          insert into payment (${PAYMENT_COLUMNS.map((c) => c.column).join(', ')}, version)
          select ${PAYMENT_COLUMNS.map((c) => castOf(c.type)).join(', ')}, 1
          where ${CHOOSE_ROW_PATH}
        )
        insert into payment_history (${[...HISTORY_KEY, ...HISTORY_COLUMNS.map((c) => c.column)].join(', ')})
        values ${Array.from({ length: historyEntries }, () => historyRow).join(', ')}`,
    };
    insertStatements.set(historyEntries, statement);
  }
  return statement;
}

/**
 * A new payment with its first history entries as one statement: one round trip, and one
 * transaction by itself (prepared) unless `em` is in one. Data-modifying CTEs share one
 * snapshot; the history's foreign key is checked at the end of the statement.
 *
 * The statement itself says it inserts one payment: `pis.counts = 'row'` for its transaction, so
 * its kept counts take the cheap row trigger, not the bulk path's transition tables
 * (Migration20261128100000_bulk_counts_per_statement). Set by the statement, not by the
 * connection: any pooled connection, reopened or behind a transaction-mode pooler, does the same.
 */
export async function insertPayment(em: EntityManager, change: Change): Promise<void> {
  const { record, history } = change;
  const values = paymentReaders.map((c) => toParameter[c.type](c.read(record)));
  history.forEach((entry, index) => {
    values.push(record.id, index + 1, ...historyReaders.map((c) => toParameter[c.type](c.read(entry))));
  });
  const statement = insertStatement(history.length);
  if (em.isInTransaction()) await em.execute(statement.sql, values, 'run');
  else await preparedQuery(em, statement, values);
}

// ---- The change pipeline's statements (payments/change-payments.ts) ----

/** How the change pipeline picks the rows it locks. */
export type PaymentLock =
  /** One payment (404 when out of scope). */
  | { scope: PaymentScope }
  /** These payments, those still due at `dueBy` (Postgres re-checks a row it waited for). */
  | { ids: readonly string[]; dueBy: Date }
  /** Up to `limit` due payments, oldest due first, skipping rows another transaction holds. */
  | { due: Date; limit: number };

/**
 * Locks rows (FOR UPDATE), in id order when several, so two batches never deadlock. The ids go
 * as one JSON parameter: the ORM would inline each id of `in (?)` into the text.
 */
export async function lockPayments(em: EntityManager, lock: PaymentLock): Promise<string[]> {
  let rows: { id: string }[];
  if ('scope' in lock) {
    const organizationId = lock.scope.organizationId ?? null;
    const mode = lock.scope.mode ?? null;
    rows = await em.execute(
      `select p.id from payment p where p.id = ? and (?::text is null or p.organization_id = ?)
        and (?::text is null or p.mode = ?) for update`,
      [lock.scope.paymentId, organizationId, organizationId, mode, mode],
    );
  } else if ('ids' in lock) {
    rows = await em.execute(
      `select p.id from payment p
        where p.id in (select json_array_elements_text(?::json)) and p.next_due_at <= ?::timestamptz
        order by p.id for update`,
      [JSON.stringify([...new Set(lock.ids)]), lock.dueBy.toISOString()],
    );
  } else {
    rows = await em.execute(
      `select p.id from payment p
        where p.next_due_at <= ?::timestamptz order by p.next_due_at limit ? for update skip locked`,
      [lock.due.toISOString(), lock.limit],
    );
  }
  return rows.map((row) => row.id);
}

/** A provider call claimed and not yet answered (see provider-claims.ts). */
export interface StoredClaim {
  claimId: string;
  action: ProviderClaimAction;
  bankId: string | null;
  claimedAt: Date;
}

export interface LockedPayment {
  record: PaymentRecord;
  /** The last history entry's `seq` (0 without history). */
  lastSeq: number;
  claim: StoredClaim | null;
  /** Every entry, oldest first (only when asked for). */
  history: HistoryRecord[] | undefined;
}

/**
 * What locked rows hold, read in a statement of its own after the lock (so it sees what the
 * previous lock holder committed): the payment, its last entry's `seq` and its claim, and with
 * `withHistory` every entry.
 */
export async function loadLockedPayments(
  em: EntityManager,
  ids: readonly string[],
  withHistory: boolean,
): Promise<LockedPayment[]> {
  if (ids.length === 0) return [];
  const rows = await em.execute<
    {
      payment: Row;
      last_seq: number | null;
      claim: {
        claim_id: string;
        action: ProviderClaimAction;
        bank_id: string | null;
        claimed_at: string;
      } | null;
      history: Row[] | null;
    }[]
  >(
    `select ${PAYMENT_ROW_JSON} as payment,
        (select max(h.seq) from payment_history h where h.payment_id = p.id) as last_seq,
        (select row_to_json(c) from provider_claim c where c.payment_id = p.id) as claim,
        ${
          withHistory
            ? `(select json_agg(h order by h.seq) from payment_history h where h.payment_id = p.id)`
            : 'null'
        } as history
      from payment p where p.id in (select json_array_elements_text(?::json)) order by p.id`,
    [JSON.stringify(ids)],
  );
  return rows.map((row) => ({
    record: decodePayment(row.payment),
    lastSeq: Number(row.last_seq ?? 0),
    claim: row.claim && {
      claimId: row.claim.claim_id,
      action: row.claim.action,
      bankId: row.claim.bank_id,
      claimedAt: new Date(row.claim.claimed_at),
    },
    history: withHistory ? (row.history ?? []).map(decodeHistory) : undefined,
  }));
}

/** A locked payment's step: its record after the step, and the entries to append after `lastSeq`. */
export interface PaymentStep {
  record: PaymentRecord;
  lastSeq: number;
  history: readonly HistoryRecord[];
}

const UPDATE_STEPS = `
  update payment p set ${stepColumns.map((c) => `${c.column} = s.${c.column}`).join(', ')},
    version = p.version + 1
  from json_to_recordset(?::json) as s(id text, ${stepColumns.map((c) => `${c.column} ${c.type}`).join(', ')})
  where p.id = s.id`;

const INSERT_HISTORY = `
  insert into payment_history (${[...HISTORY_KEY, ...HISTORY_COLUMNS.map((c) => c.column)].join(', ')})
  select ${[...HISTORY_KEY, ...HISTORY_COLUMNS.map((c) => c.column)].map((c) => `h.${c}`).join(', ')}
  from json_to_recordset(?::json) as h(payment_id text, seq int, ${HISTORY_COLUMNS.map(
    (c) => `${c.column} ${c.type}`,
  ).join(', ')})`;

/**
 * Saves steps of locked payments in two statements whatever their number (the columns a step may
 * change, `version` moved on; the new entries). For thousands of steps due at once, entities
 * cost most of the time (hydrating, diffing and flushing each).
 */
export async function saveSteps(em: EntityManager, steps: readonly PaymentStep[]): Promise<void> {
  if (steps.length === 0) return;
  const states = steps.map(({ record }) => {
    const state: Row = { id: record.id };
    for (const c of stepColumns) state[c.column] = c.read(record);
    return state;
  });
  await em.execute(UPDATE_STEPS, [JSON.stringify(states)], 'run');
  const history = steps.flatMap(({ record, lastSeq, history: entries }) =>
    entries.map((entry, index) => {
      const row: Row = { payment_id: record.id, seq: lastSeq + index + 1 };
      for (const c of historyReaders) row[c.column] = c.read(entry);
      return row;
    }),
  );
  if (history.length > 0) await em.execute(INSERT_HISTORY, [JSON.stringify(history)], 'run');
}

/** Whether a cancel of the payment is being told to its provider (its claim is held). */
export async function cancelClaimed(em: EntityManager, paymentId: string): Promise<boolean> {
  const rows = await em
    .fork()
    .execute<{ one: number }[]>(
      `select 1 as one from provider_claim where payment_id = ? and action = 'cancel'`,
      [paymentId],
    );
  return rows.length > 0;
}

/** Claims made at or before `staleBefore`, oldest first (the reconcile job's, provider-claims.ts). */
export async function staleClaims(
  em: EntityManager,
  staleBefore: Date,
  limit: number,
): Promise<(StoredClaim & { paymentId: string })[]> {
  const rows = await em.fork().execute<
    {
      payment_id: string;
      claim_id: string;
      action: ProviderClaimAction;
      bank_id: string | null;
      claimed_at: Date | string;
    }[]
  >(
    `select payment_id, claim_id, action, bank_id, claimed_at from provider_claim
      where claimed_at <= ?::timestamptz order by claimed_at asc limit ?`,
    [staleBefore.toISOString(), limit],
  );
  return rows.map((row) => ({
    paymentId: row.payment_id,
    claimId: row.claim_id,
    action: row.action,
    bankId: row.bank_id,
    claimedAt: new Date(row.claimed_at),
  }));
}

/** Under the payment's lock: records a provider claim. */
export async function insertClaim(em: EntityManager, paymentId: string, claim: StoredClaim): Promise<void> {
  await em.execute(
    `insert into provider_claim (payment_id, claim_id, action, bank_id, claimed_at)
      values (?, ?, ?, ?, ?::timestamptz)`,
    [paymentId, claim.claimId, claim.action, claim.bankId, claim.claimedAt.toISOString()],
    'run',
  );
}

/**
 * A payment stored before its bank was called, which the bank then refused: it goes again, with
 * its history and claim (cascade), but only while it is still PENDING and unclaimed, so a
 * payment anything else has touched is never deleted (payments/create-at-real-provider.ts).
 * True when it was deleted.
 */
export async function deleteUnsentPayment(em: EntityManager, paymentId: string): Promise<boolean> {
  const deleted = await em.execute(
    `delete from payment where id = ? and status = 'PENDING'
       and not exists (select 1 from provider_claim where payment_id = ?)`,
    [paymentId, paymentId],
    'run',
  );
  return affectedRows(deleted) === 1;
}

/** Under the payment's lock: the claim `claimId` goes (it was answered). */
export async function deleteClaim(em: EntityManager, paymentId: string, claimId: string): Promise<void> {
  await em.execute(
    `delete from provider_claim where payment_id = ? and claim_id = ?`,
    [paymentId, claimId],
    'run',
  );
}

// ---- Figures ----

/** A live overview's counts by status, from the rows (the kept counts are test payments'). */
export async function liveCountsByStatus(
  em: EntityManager,
  organizationId: string,
): Promise<{ status: PaymentStatus; count: number }[]> {
  return em.execute<{ status: PaymentStatus; count: number }[]>(
    `select status, count(*)::int as count from payment where organization_id = ? and mode = 'live' group by status`,
    [organizationId],
  );
}

/**
 * A live overview's volume from the rows: COMPLETED payments by the UTC day they were created
 * (from `sinceDay`, YYYY-MM-DD) and currency (the kept `payment_day_volume` is test payments').
 */
export async function liveVolumeByDay(
  em: EntityManager,
  organizationId: string,
  sinceDay: string,
): Promise<VolumeDay[]> {
  return em.execute<VolumeDay[]>(
    `select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, currency,
             sum(amount_value)::text as value, count(*)::int as count
           from payment
           where organization_id = ? and mode = 'live' and status = 'COMPLETED'
             and created_at >= ?::date at time zone 'UTC'
           group by 1, 2 order by 1, 2`,
    [organizationId, sinceDay],
  );
}

/**
 * The sweep's backlog (process metrics): overdue payments, at most `cap` counted, and how long the
 * oldest has been due. One indexed range read on next_due_at, on the database's clock (as the
 * sweep reads it).
 */
export async function overdueBacklog(
  em: EntityManager,
  cap: number,
): Promise<{ overdue: number; oldestSeconds: number }> {
  const [row] = await em.getConnection().execute<{ overdue: number; oldest: number | null }[]>(
    `select count(*)::int as overdue, extract(epoch from now() - min(next_due_at))::float8 as oldest
       from (select next_due_at from payment where next_due_at <= now() order by next_due_at limit ${cap}) due`,
  );
  return { overdue: row?.overdue ?? 0, oldestSeconds: Math.max(0, row?.oldest ?? 0) };
}
