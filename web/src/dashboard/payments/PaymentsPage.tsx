import { isPaymentStatus, PAYMENT_STATUSES } from '@pis/shared/payment-statuses';
import { useId } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { formatAmount } from '../../format/money.ts';
import { dashboardApi, type PaymentList } from '../api/dashboard-api.ts';
import { formatDateTime } from '../components/format-date.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useSession } from '../session/session-context.tsx';
import { useDashboardLoad } from '../session/use-dashboard-call.ts';

const PAGE_SIZE = 20;

/** The list's filters live in the address, so Back and a shared link show the same page. */
export const listQuery = (params: URLSearchParams) => {
  const status = params.get('status');
  const provider = params.get('provider');
  const page = Math.max(1, Math.floor(Number(params.get('page') ?? '1')) || 1);
  return {
    ...(isPaymentStatus(status) ? { status } : {}),
    ...(provider ? { provider } : {}),
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  };
};

/** `/dashboard/payments`: newest first, by status and provider, a page at a time. */
export const PaymentsPage = () => {
  const [params, setParams] = useSearchParams();
  const query = listQuery(params);
  const { result, reload } = useDashboardLoad(
    (signal) => dashboardApi.payments(query, signal),
    JSON.stringify(query),
    { keepPrevious: true },
  );

  const update = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    setParams(next);
  };

  return (
    <DashboardShell title="Payments">
      <Heading>Payments</Heading>
      <Filters status={query.status ?? ''} provider={query.provider ?? ''} onChange={update} />
      {result.state === 'loading' ? <LoadingStatus label="Loading payments…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? (
        <div className={result.stale ? 'stale' : undefined}>
          <PaymentTable list={result.data} />
          <Pager list={result.data} onPage={(page) => update({ page: page > 1 ? String(page) : null })} />
        </div>
      ) : null}
    </DashboardShell>
  );
};

interface FiltersProps {
  status: string;
  provider: string;
  onChange: (changes: Record<string, string | null>) => void;
}

const Filters = ({ status, provider, onChange }: FiltersProps) => {
  const ids = useId();
  const { organization } = useSession();
  return (
    <div className="filters">
      <div className="field">
        <label htmlFor={`${ids}-status`}>Status</label>
        <select
          id={`${ids}-status`}
          value={status}
          onChange={(event) => onChange({ status: event.target.value || null, page: null })}
        >
          <option value="">All statuses</option>
          {PAYMENT_STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${ids}-provider`}>Provider</label>
        <select
          id={`${ids}-provider`}
          value={provider}
          onChange={(event) => onChange({ provider: event.target.value || null, page: null })}
        >
          <option value="">All providers</option>
          {organization.approvedProviders.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
};

const PaymentTable = ({ list }: { list: PaymentList }) => {
  if (list.payments.length === 0) return <p className="muted">No payments match.</p>;
  return (
    <ScrollTable label="Payments">
      <thead>
        <tr>
          <th scope="col">Amount</th>
          <th scope="col">Status</th>
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
            <td className="table__wrap">{payment.reference.reference}</td>
            <td>{payment.provider}</td>
            <td>{formatDateTime(payment.createdAt)}</td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
};

const Pager = ({ list, onPage }: { list: PaymentList; onPage: (page: number) => void }) => {
  const page = Math.floor(list.offset / list.limit) + 1;
  const pages = Math.max(1, Math.ceil(list.total / list.limit));
  const first = list.total === 0 ? 0 : list.offset + 1;
  const last = Math.min(list.offset + list.payments.length, list.total);
  return (
    <nav aria-label="Pages" className="pager">
      <p role="status" className="pager__count">
        {first}–{last} of {list.total}
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
