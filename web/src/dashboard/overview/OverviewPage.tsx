import { PAYMENT_STATUSES } from '@pis/shared/payment-statuses';
import { Link, useSearchParams } from 'react-router';
import { Heading } from '../../components/Heading.tsx';
import { LoadingStatus } from '../../components/Skeleton.tsx';
import { REJECT_REASONS } from '../../format/labels.ts';
import { pageLocale } from '../../format/locale.ts';
import type { Overview as OverviewData, OverviewDays } from '../api/dashboard-api.ts';
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
  const [params] = useSearchParams();
  // The period lives in the address (`?days=7`); anything else is the default 30.
  const asked = Number(params.get('days'));
  const days: OverviewDays = asked === 7 || asked === 90 ? asked : 30;
  const { result, reload } = useDashboardQuery(dashboardQueries.overview(days), { keepPrevious: true });

  return (
    <DashboardShell title="Overview">
      {result.state === 'loading' ? <LoadingStatus label="Loading overview…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? (
        <div className={result.stale ? 'stale' : undefined}>
          <Overview overview={result.data} />
        </div>
      ) : null}
    </DashboardShell>
  );
};

const Overview = ({ overview }: { overview: OverviewData }) => {
  const { organization, countsByStatus, volume, days, outcomes } = overview;
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

      <nav aria-label="Period" className="actions section">
        {([7, 30, 90] as const).map((period) => (
          <Link
            key={period}
            to={period === 30 ? '/dashboard' : `/dashboard?days=${period}`}
            className={`button${period === days ? ' button--primary' : ''}`}
            aria-current={period === days ? 'page' : undefined}
          >
            {period} days
          </Link>
        ))}
      </nav>

      <section aria-labelledby="outcomes-heading" className="section">
        <h2 id="outcomes-heading" className="subheading">
          How the last {days} days went
        </h2>
        <Outcomes outcomes={outcomes} />
      </section>

      <section aria-labelledby="volume-heading" className="section">
        <h2 id="volume-heading" className="subheading">
          Volume
        </h2>
        <VolumeChart volume={volume} days={lastDays(new Date(), days)} />
      </section>
    </>
  );
};

const percent = (rate: number) =>
  new Intl.NumberFormat(pageLocale(), { style: 'percent', maximumFractionDigits: 1 }).format(rate);

/** A duration in the largest unit that reads well: 45 s, 12 min, 3.5 h. */
const duration = (seconds: number) =>
  seconds < 90
    ? `${Math.round(seconds)} s`
    : seconds < 90 * 60
      ? `${Math.round(seconds / 60)} min`
      : `${(seconds / 3600).toFixed(1)} h`;

/** Success rate, median time to complete, top banks and failure reasons of the period. */
const Outcomes = ({ outcomes }: { outcomes: OverviewData['outcomes'] }) => {
  if (outcomes.finished === 0)
    return <p className="muted">No payment created in this period has finished yet.</p>;
  return (
    <>
      <dl className="facts">
        <div className="facts__item">
          <dt>Success rate</dt>
          <dd>
            {outcomes.successRate === null ? '—' : percent(outcomes.successRate)}{' '}
            <span className="muted">
              ({outcomes.completed} completed of {outcomes.finished} finished)
            </span>
          </dd>
        </div>
        <div className="facts__item">
          <dt>Median time to complete</dt>
          <dd>
            {outcomes.medianSecondsToComplete === null ? '—' : duration(outcomes.medianSecondsToComplete)}
          </dd>
        </div>
      </dl>
      <div className="facts">
        <div className="facts__item">
          <h3 className="facts__title">Top banks</h3>
          {outcomes.topBanks.length === 0 ? (
            <p className="muted">None completed.</p>
          ) : (
            <ol>
              {outcomes.topBanks.map((bank) => (
                <li key={bank.bankId}>
                  {bank.bankId || 'No bank recorded'}: {bank.completed}
                </li>
              ))}
            </ol>
          )}
        </div>
        <div className="facts__item">
          <h3 className="facts__title">Top failure reasons</h3>
          {outcomes.topFailureReasons.length === 0 ? (
            <p className="muted">None failed.</p>
          ) : (
            <ol>
              {outcomes.topFailureReasons.map((reason) => (
                <li key={reason.code}>
                  <code>{reason.code}</code>{' '}
                  {REJECT_REASONS.find((known) => known.code === reason.code)?.hint ?? ''}: {reason.count}
                </li>
              ))}
            </ol>
          )}
        </div>
      </div>
    </>
  );
};
