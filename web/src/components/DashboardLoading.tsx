import { HeadingSkeleton, LoadingStatus } from './Skeleton.tsx';

/**
 * What a merchant sees while the dashboard's chunk loads and their session is checked: the dark
 * bar and a placeholder heading, drawn with the entry's own styles, so the first paint is the
 * console's frame rather than a blank page (issue 23 item 1).
 */
export const DashboardLoading = () => (
  <div className="shell">
    <header className="topbar">
      <span className="topbar__brand">Payments dashboard</span>
    </header>
    <main className="page">
      <HeadingSkeleton />
      <LoadingStatus label="Loading dashboard…" />
    </main>
  </div>
);
