import { LoadingStatus } from '../../components/Skeleton.tsx';
import type { OrganizationBudgets } from '../api/dashboard-api.ts';
import { dashboardQueries } from '../api/dashboard-queries.ts';
import { LoadProblem } from '../components/LoadProblem.tsx';
import { useDashboardQuery } from '../session/use-dashboard-query.ts';

const NAMES: Record<string, string> = {
  'api-read': 'API reads (GET)',
  'api-write': 'API writes (create, cancel; New payment too)',
  dashboard: 'Dashboard requests',
};

/** `60 s` as a merchant reads it: "a minute", else seconds. */
const windowText = (seconds: number) => (seconds === 60 ? 'a minute' : `per ${seconds} seconds`);

/**
 * The organization's budgets (issue 34 item 12), as the server counts them: each limit, how much of
 * the current window its keys and sessions used, and when the window starts again.
 */
export const ApiBudgets = () => {
  const { result, reload } = useDashboardQuery(dashboardQueries.budgets());
  return (
    <section aria-labelledby="budgets-heading" className="section">
      <h2 id="budgets-heading" className="subheading">
        API budgets
      </h2>
      {result.state === 'loading' ? <LoadingStatus label="Loading budgets…" /> : null}
      {result.state === 'failed' ? <LoadProblem error={result.error} onRetry={reload} /> : null}
      {result.state === 'ready' ? <BudgetList budgets={result.data} onRefresh={reload} /> : null}
    </section>
  );
};

const BudgetList = ({ budgets, onRefresh }: { budgets: OrganizationBudgets; onRefresh: () => void }) => {
  if (!budgets.enabled) return <p>This service counts no requests: its operator switched rate limits off.</p>;
  return (
    <>
      <p className="muted">
        Counted for your whole organization (every key and member), in windows of {budgets.windowSeconds}{' '}
        seconds. Over a budget, requests are refused with 429 until the window starts again.
        {budgets.reduced
          ? ' As a new sign-up your organization has a tenth of the usual budgets until the operator raises them.'
          : ''}
      </p>
      <ul className="budgets">
        {budgets.budgets.map((budget) => {
          const name = NAMES[budget.budget] ?? budget.budget;
          return (
            <li key={budget.budget} className="budgets__item">
              <span className="budgets__name">{name}</span>
              <meter
                className="budgets__meter"
                min={0}
                max={budget.limit}
                high={budget.limit * 0.8}
                value={Math.min(budget.used, budget.limit)}
                aria-label={`${name} used`}
              />
              <span>
                {budget.used} of {budget.limit} {windowText(budgets.windowSeconds)} · starts again in{' '}
                {budget.resetSeconds} s
              </span>
            </li>
          );
        })}
        <li className="budgets__item">
          <span className="budgets__name">Waiting reads held at once</span>
          <span>{budgets.waitsAtOnce}</span>
        </li>
      </ul>
      <button type="button" className="button button--small" onClick={onRefresh}>
        Refresh
      </button>
    </>
  );
};
