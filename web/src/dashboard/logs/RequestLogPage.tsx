import { type FormEvent, useId, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { formatDateTime } from '../components/format-date.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { ScrollTable } from '../components/ScrollTable.tsx';
import { TextField } from '../components/TextField.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useDashboardLoad } from '../session/use-dashboard-call.ts';
import { logsApi, type RequestLogPage as Page, type RequestLogQuery } from './logs-api.ts';

const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;

/** The filters live in the address, so Back and a shared link show the same list. */
const queryOf = (params: URLSearchParams): RequestLogQuery => {
  const status = params.get('status');
  const text = (name: string, max: number) => {
    const value = params.get(name)?.trim();
    return value && value.length <= max ? value : undefined;
  };
  const route = text('route', 200);
  const keyPrefix = text('key', 20);
  const requestId = text('requestId', 128);
  const before = params.get('before');
  return {
    ...(status && (STATUS_CLASSES as readonly string[]).includes(status)
      ? { status: status as (typeof STATUS_CLASSES)[number] }
      : status && /^[1-5][0-9]{2}$/.test(status)
        ? { status: Number(status) }
        : {}),
    ...(route ? { route } : {}),
    ...(keyPrefix ? { keyPrefix } : {}),
    ...(requestId ? { requestId } : {}),
    ...(before && /^[1-9][0-9]{0,18}$/.test(before) ? { before } : {}),
    limit: 50,
  };
};

/** `/dashboard/logs/requests`: every API request of the organization, 30 days, newest first. */
export const RequestLogPage = () => {
  const [params, setParams] = useSearchParams();
  const query = queryOf(params);
  const { result, reload } = useDashboardLoad(
    (signal) => logsApi.requests(query, signal),
    JSON.stringify(query),
    {
      keepPrevious: true,
    },
  );
  return (
    <DashboardShell title="Request log">
      <Heading>Request log</Heading>
      <p className="muted">
        Every API request made with your keys in the last 30 days. Bodies are kept with secrets and account
        numbers masked.
      </p>
      <Filters
        params={params}
        onApply={(next) => {
          setParams(next);
        }}
      />
      {result.state === 'loading' ? <LoadingStatus label="Loading requests…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? (
        <div className={result.stale ? 'stale' : undefined}>
          <RequestTable page={result.data} />
          {result.data.nextBefore ? (
            <p>
              <Link to={`?${withParam(params, 'before', result.data.nextBefore)}`}>Older requests</Link>
            </p>
          ) : null}
        </div>
      ) : null}
    </DashboardShell>
  );
};

const withParam = (params: URLSearchParams, name: string, value: string) => {
  const next = new URLSearchParams(params);
  next.set(name, value);
  return next.toString();
};

const Filters = ({
  params,
  onApply,
}: {
  params: URLSearchParams;
  onApply: (next: URLSearchParams) => void;
}) => {
  const ids = useId();
  const [status, setStatus] = useState(params.get('status') ?? '');
  const [route, setRoute] = useState(params.get('route') ?? '');
  const [key, setKey] = useState(params.get('key') ?? '');
  const [requestId, setRequestId] = useState(params.get('requestId') ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const [name, value] of [
      ['status', status],
      ['route', route],
      ['key', key],
      ['requestId', requestId],
    ] as const) {
      if (value.trim()) next.set(name, value.trim());
    }
    onApply(next);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Search requests">
      <div className="field">
        <label htmlFor={`${ids}-status`}>Status</label>
        <select id={`${ids}-status`} value={status} onChange={(event) => setStatus(event.target.value)}>
          <option value="">All</option>
          <option value="2xx">Succeeded (2xx)</option>
          <option value="4xx">Refused (4xx)</option>
          <option value="5xx">Failed (5xx)</option>
        </select>
      </div>
      <TextField
        label="Route"
        value={route}
        placeholder="/api/payments/{paymentId}"
        onChange={(event) => setRoute(event.target.value)}
      />
      <TextField
        label="Key prefix"
        value={key}
        placeholder="pis_…"
        onChange={(event) => setKey(event.target.value)}
      />
      <TextField
        label="Request id"
        value={requestId}
        onChange={(event) => setRequestId(event.target.value)}
      />
      <div className="actions">
        <button type="submit" className="button">
          Search
        </button>
      </div>
    </form>
  );
};

const RequestTable = ({ page }: { page: Page }) => {
  if (page.entries.length === 0) return <p className="muted">No requests match.</p>;
  return (
    <ScrollTable label="Requests">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Request</th>
          <th scope="col">Status</th>
          <th scope="col">Error</th>
          <th scope="col">Duration</th>
          <th scope="col">Key</th>
          <th scope="col">Request id</th>
        </tr>
      </thead>
      <tbody>
        {page.entries.map((entry) => (
          <tr key={entry.id}>
            <td>{formatDateTime(entry.at)}</td>
            <th scope="row" className="table__wrap">
              <Link to={`/dashboard/logs/requests/${entry.id}`}>
                {entry.method} {entry.route}
              </Link>
            </th>
            <td>
              <span
                className={`badge badge--${entry.status >= 500 ? 'failure' : entry.status >= 400 ? 'progress' : 'success'}`}
              >
                {entry.status}
              </span>
            </td>
            <td>{entry.errorCode ?? ''}</td>
            <td>{entry.durationMs} ms</td>
            <td>
              <code>{entry.keyPrefix}…</code>
            </td>
            <td className="table__wrap">
              <code>{entry.requestId}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </ScrollTable>
  );
};
