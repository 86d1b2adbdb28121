import { Link, useParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { formatDateTime } from '../components/format-date.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useDashboardLoad } from '../session/use-dashboard-call.ts';
import { logsApi, type RequestLogDetail } from './logs-api.ts';

/** `/dashboard/logs/requests/:id`: one request, with its bodies as stored (masked). */
export const RequestLogEntryPage = () => {
  const { id = '' } = useParams();
  const { result, reload } = useDashboardLoad((signal) => logsApi.request(id, signal), `request-log-${id}`);
  return (
    <DashboardShell title="Request">
      <p>
        <Link to="/dashboard/logs/requests">Back to the request log</Link>
      </p>
      {result.state === 'loading' ? <LoadingStatus label="Loading the request…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <Entry entry={result.data} /> : null}
    </DashboardShell>
  );
};

const pretty = (body: string | null) => {
  if (body === null) return 'No body';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

const Entry = ({ entry }: { entry: RequestLogDetail }) => (
  <>
    <Heading>
      {entry.method} {entry.route}
    </Heading>
    <dl className="details">
      <div className="details__row">
        <dt>Time</dt>
        <dd>{formatDateTime(entry.at)}</dd>
      </div>
      <div className="details__row">
        <dt>Status</dt>
        <dd>
          {entry.status}
          {entry.errorCode ? ` ${entry.errorCode}` : ''}
        </dd>
      </div>
      <div className="details__row">
        <dt>Duration</dt>
        <dd>{entry.durationMs} ms</dd>
      </div>
      <div className="details__row">
        <dt>Key</dt>
        <dd>
          <code>{entry.keyPrefix}…</code>
        </dd>
      </div>
      <div className="details__row">
        <dt>Request id</dt>
        <dd>
          <code>{entry.requestId}</code>
        </dd>
      </div>
      <div className="details__row">
        <dt>Idempotency-Key</dt>
        <dd>{entry.idempotencyKey ? <code>{entry.idempotencyKey}</code> : 'None'}</dd>
      </div>
    </dl>
    <section aria-labelledby="request-body-heading" className="section">
      <h2 id="request-body-heading" className="subheading">
        Request body
      </h2>
      <div className="code">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: long lines scroll, so the block must be reachable by keyboard */}
        <pre tabIndex={0}>
          <code>{pretty(entry.requestBody)}</code>
        </pre>
      </div>
    </section>
    <section aria-labelledby="response-body-heading" className="section">
      <h2 id="response-body-heading" className="subheading">
        Response body
      </h2>
      <div className="code">
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: long lines scroll, so the block must be reachable by keyboard */}
        <pre tabIndex={0}>
          <code>{pretty(entry.responseBody)}</code>
        </pre>
      </div>
    </section>
  </>
);
