import { PAYMENT_STATUS_LABELS, PAYMENT_STATUSES } from '@pis/shared/payment-statuses';
import { type FormEvent, useEffect, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { pageLocale } from '../../format/locale.ts';
import { formatAmount } from '../../format/money.ts';
import type { PaymentList } from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { RelativeTime } from '../components/RelativeTime.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { TextField } from '../components/TextField.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useSession } from '../session/session-context.tsx';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';
import { exportQuery, isFiltered, type ListQuery, readListQuery, SEARCH_MAX } from './list-query.ts';

/** The session-authenticated CSV download (server/src/dashboard/export-route.ts). */
const DASHBOARD_EXPORT_URL = '/api/dashboard/payments/export';

const RESET_NOTICE = (unusable: string[]) =>
  `The address asked for ${unusable.join(' and ')}, which this list cannot show, so it shows every payment from the first page.`;

const ADDRESS_ORDER = ['search', 'from', 'to', 'status', 'provider', 'page'];
const addressRank = (name: string) => {
  const rank = ADDRESS_ORDER.indexOf(name);
  return rank === -1 ? ADDRESS_ORDER.length : rank;
};

/** `/dashboard/payments`: newest first, by status and provider, a page at a time. */
export const PaymentsPage = () => {
  const [params, setParams] = useSearchParams();
  const { organization } = useSession();
  const { query, unusable } = readListQuery(params, organization.approvedProviders);
  const [notice, setNotice] = useState('');
  const { result, reload } = useDashboardQuery(dashboardQueries.payments(query), { keepPrevious: true });

  // A filter the list cannot use resets the address to the defaults, and says so once.
  const unusableText = unusable.join('\n');
  // biome-ignore lint/correctness/useExhaustiveDependencies: the text stands for the list
  useEffect(() => {
    if (unusable.length === 0) return;
    setNotice(RESET_NOTICE(unusable));
    setParams(new URLSearchParams(), { replace: true });
  }, [unusableText, setParams]);

  // A page past the end (the list shrank, or a hand-made address): back to the first page.
  const pastTheEnd =
    result.state === 'ready' && !result.stale && result.data.payments.length === 0 && result.data.offset > 0;
  useEffect(() => {
    if (!pastTheEnd) return;
    setNotice('That page is past the end of the list, so it shows the first page.');
    const next = new URLSearchParams(params);
    next.delete('page');
    setParams(next, { replace: true });
  }, [pastTheEnd, params, setParams]);

  const update = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    setNotice('');
    // One order of the filters in the address, however they were applied (a link reads the same).
    const ordered = [...next].sort(([a], [b]) => addressRank(a) - addressRank(b));
    setParams(new URLSearchParams(ordered));
  };

  return (
    <DashboardShell title="Payments">
      <div className="page-head">
        <Heading>Payments</Heading>
        <Link to="/dashboard/payments/new" className="button button--primary">
          New payment
        </Link>
      </div>
      <p role="status" className="notice-line">
        {notice}
      </p>
      <Filters params={params} query={query} providers={organization.approvedProviders} onChange={update} />
      {result.state === 'loading' ? <LoadingStatus label="Loading payments…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? (
        <div className={result.stale ? 'stale' : undefined}>
          {result.data.total === 0 ? (
            <EmptyList filtered={isFiltered(query)} />
          ) : (
            <>
              <PaymentTable list={result.data} />
              <Pager list={result.data} onPage={(page) => update({ page: page > 1 ? String(page) : null })} />
            </>
          )}
        </div>
      ) : null}
    </DashboardShell>
  );
};

/**
 * The latest day a date filter takes. Without a `max`, Chromium sizes a date field's year for six
 * digits (up to 275760), and the field cuts its own text in the filters' row.
 */
const LAST_DAY = '9999-12-31';

interface FiltersProps {
  params: URLSearchParams;
  query: ListQuery;
  providers: readonly string[];
  onChange: (changes: Record<string, string | null>) => void;
}

/**
 * Status and provider apply when picked; the search and the days when the form is sent (one
 * request per search, not per key). All of it lives in the address.
 */
const Filters = ({ params, query, providers, onChange }: FiltersProps) => {
  const addressSearch = query.search ?? '';
  const addressFrom = query.createdFrom ? (params.get('from') ?? '') : '';
  const addressTo = query.createdTo ? (params.get('to') ?? '') : '';
  const [search, setSearch] = useState(addressSearch);
  const [from, setFrom] = useState(addressFrom);
  const [to, setTo] = useState(addressTo);
  // Back, a link or "Show all payments" change the address: the fields follow it, each only when
  // its own part changed. An emptied search reaches the address a render later; days typed in
  // between are the merchant's and must not be reset with it.
  useEffect(() => setSearch(addressSearch), [addressSearch]);
  useEffect(() => setFrom(addressFrom), [addressFrom]);
  useEffect(() => setTo(addressTo), [addressTo]);
  // Every filter applies together: a status picked after editing the search (or emptying it)
  // takes the fields as they read now, not the address's older search (issue 34 item 8).
  const typed = () => ({ search: search.trim() || null, from: from || null, to: to || null, page: null });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange(typed());
  };
  return (
    <form className="filters filters--row" onSubmit={submit} aria-label="Find payments">
      <TextField
        label="Search"
        type="search"
        value={search}
        maxLength={SEARCH_MAX}
        hint="Payment id, end-to-end id, reference, payee or an exact amount"
        onChange={(event) => {
          setSearch(event.target.value);
          // An emptied search (its clear button, or the text deleted) shows every payment again at once.
          if (event.target.value === '' && addressSearch) onChange({ ...typed(), search: null });
        }}
      />
      <TextField
        label="From"
        type="date"
        value={from}
        max={to || LAST_DAY}
        onChange={(event) => setFrom(event.target.value)}
      />
      <TextField
        label="To"
        type="date"
        value={to}
        min={from || undefined}
        max={LAST_DAY}
        onChange={(event) => setTo(event.target.value)}
      />
      <ChoiceFilter
        label="Status"
        all="All statuses"
        value={query.status}
        choices={PAYMENT_STATUSES.map((value) => ({ value, label: PAYMENT_STATUS_LABELS[value] }))}
        onChange={(status) => onChange({ ...typed(), status })}
      />
      <ChoiceFilter
        label="Provider"
        all="All providers"
        value={query.provider}
        choices={providers.map((value) => ({ value, label: value }))}
        onChange={(provider) => onChange({ ...typed(), provider })}
      />
      <div className="actions">
        <button type="submit" className="button">
          Search
        </button>
        <a className="button" href={`${DASHBOARD_EXPORT_URL}?${exportQuery(query)}`} download="payments.csv">
          Export CSV
        </a>
      </div>
    </form>
  );
};

interface ChoiceFilterProps {
  label: string;
  /** The first option, which filters nothing. */
  all: string;
  value: string | undefined;
  choices: readonly { value: string; label: string }[];
  /** The chosen value, or null for "all". */
  onChange: (value: string | null) => void;
}

/** A filter that applies when picked. */
const ChoiceFilter = ({ label, all, value, choices, onChange }: ChoiceFilterProps) => {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value ?? ''} onChange={(event) => onChange(event.target.value || null)}>
        <option value="">{all}</option>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </select>
    </div>
  );
};

/** No payments: with filters, a way back to all; with none yet, the two ways to make one. */
const EmptyList = ({ filtered }: { filtered: boolean }) =>
  filtered ? (
    <div className="empty">
      <p>No payments match these filters.</p>
      <Link to="/dashboard/payments">Show all payments</Link>
    </div>
  ) : (
    <div className="empty">
      <h2 className="subheading">No payments yet</h2>
      <p>Take one now, by link or QR code, or create them from your own code.</p>
      <div className="actions">
        <Link to="/dashboard/payments/new" className="button button--primary">
          New payment
        </Link>
        <Link to="/dashboard/quick-start" className="button">
          Open the quick start
        </Link>
      </div>
    </div>
  );

const PaymentTable = ({ list }: { list: PaymentList }) => (
  <ScrollTable label="Payments">
    <thead>
      <tr>
        <th scope="col">Amount</th>
        <th scope="col">Status</th>
        <th scope="col">Payee</th>
        <th scope="col">Reference</th>
        <th scope="col">Provider</th>
        <th scope="col">Created</th>
      </tr>
    </thead>
    <tbody>
      {list.payments.map((payment) => (
        <tr key={payment.paymentId}>
          <th scope="row">
            <Link to={`/dashboard/payments/${encodeURIComponent(payment.paymentId)}`}>
              {formatAmount(payment.amount.value, payment.amount.currency)}
            </Link>
          </th>
          <td>
            <StatusBadge status={payment.status} />
          </td>
          <td className="table__wrap">{payment.toAccount.accountName}</td>
          <td className="table__wrap">{payment.reference.reference}</td>
          <td>{payment.provider}</td>
          <td>
            <RelativeTime iso={payment.createdAt} />
          </td>
        </tr>
      ))}
    </tbody>
  </ScrollTable>
);

const Pager = ({ list, onPage }: { list: PaymentList; onPage: (page: number) => void }) => {
  const page = Math.floor(list.offset / list.limit) + 1;
  const pages = Math.max(1, Math.ceil(list.total / list.limit));
  const first = list.total === 0 ? 0 : list.offset + 1;
  const last = Math.min(list.offset + list.payments.length, list.total);
  const number = new Intl.NumberFormat(pageLocale());
  return (
    <nav aria-label="Pages" className="pager">
      <p role="status" className="pager__count">
        {number.format(first)}–{number.format(last)} of {number.format(list.total)}
      </p>
      <button type="button" className="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <button type="button" className="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
};
