import { Navigate, Outlet, useLocation } from 'react-router';
import { DashboardLoading } from '../../components/DashboardLoading.tsx';
import { useSessionState } from './session-context.tsx';

/** Layout route of the signed-in pages: anyone else goes to sign-in, and comes back here afterwards. */
export const RequireSession = () => {
  const { current, recheck } = useSessionState();
  const location = useLocation();
  if (current.state === 'checking') return <DashboardLoading />;
  if (current.state === 'unreachable') {
    return (
      <main className="page">
        <div className="card notice">
          <h1 className="heading">Dashboard unavailable</h1>
          <p>{current.message}</p>
          <button type="button" className="button button--primary" onClick={recheck}>
            Try again
          </button>
        </div>
      </main>
    );
  }
  if (current.state === 'signed-out') {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/dashboard/sign-in?${new URLSearchParams({ next })}`} replace />;
  }
  return <Outlet />;
};
