import { PAYMENT_STATUSES } from '@pis/shared/payment-statuses';
import { Link } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import type { Overview as OverviewData } from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { DashboardShell } from '../layout/DashboardShell.tsx';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';
import { VolumeChart } from './VolumeChart.tsx';

const WINDOW_DAYS = 30;

/** The last 30 days (UTC, as the server groups them), oldest first, ending today. */
export const lastDays = (now = new Date(), count = WINDOW_DAYS): string[] =>
  Array.from({ length: count }, (_, back) =>
    new Date(now.getTime() - (count - 1 - back) * 86_400_000).toISOString().slice(0, 10),
  );

/** `/dashboard`: where the organization stands, at a glance. */
export const OverviewPage = () => {
  const { result, reload } = useDashboardQuery(dashboardQueries.overview());

  return (
    <DashboardShell title="Overview">
      {result.state === 'loading' ? <LoadingStatus label="Loading overview…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <Overview overview={result.data} /> : null}
    </DashboardShell>
  );
};

const Overview = ({ overview }: { overview: OverviewData }) => {
  const { organization, countsByStatus, volume } = overview;
  const counts = PAYMENT_STATUSES.map((status) => [status, countsByStatus[status] ?? 0] as const).filter(
    ([, count]) => count > 0,
  );
  return (
    <>
      <Heading>{organization.name}</Heading>
      <dl className="facts">
        <div className="facts__item">
          <dt>Account</dt>
          <dd>
            {organization.active ? (
              <span className="badge badge--success">Active</span>
            ) : (
              <span className="badge badge--failure">Inactive: API calls are refused</span>
            )}
          </dd>
        </div>
        <div className="facts__item">
          <dt>Approved providers</dt>
          <dd>{organization.approvedProviders.join(', ')}</dd>
        </div>
      </dl>

      <section aria-labelledby="counts-heading" className="section">
        <h2 id="counts-heading" className="subheading">
          Payments by status
        </h2>
        {counts.length === 0 ? (
          <p className="muted">
            No payments yet. The <Link to="/dashboard/quick-start">quick start</Link> shows how to create one.
          </p>
        ) : (
          <ul className="counts">
            {counts.map(([status, count]) => (
              <li key={status} className="counts__item">
                <Link to={`/dashboard/payments?status=${status}`} className="counts__link">
                  <span className="counts__number">{count}</span> <StatusBadge status={status} />
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="volume-heading" className="section">
        <h2 id="volume-heading" className="subheading">
          Volume
        </h2>
        <VolumeChart volume={volume} days={lastDays()} />
      </section>
    </>
  );
};
