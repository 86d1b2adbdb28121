import type { DashboardError } from '../api/dashboard-error.ts';

/** A page's data could not be loaded: say why, offer to try again. */
export const LoadProblem = ({ error, onRetry }: { error: DashboardError; onRetry: () => void }) => (
  <div role="alert" className="inline-problem">
    <p>{error.kind === 'NOT_FOUND' ? 'Not found.' : error.message}</p>
    {error.kind === 'NOT_FOUND' ? null : (
      <button type="button" className="button" onClick={onRetry}>
        Try again
      </button>
    )}
  </div>
);
