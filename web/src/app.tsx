import { lazy, Suspense } from 'react';
import { DashboardLoading } from './components/DashboardLoading.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { HostedPaymentPage } from './pages/hosted/HostedPaymentPage.tsx';
import { MockBankPage } from './pages/mock-bank/MockBankPage.tsx';
import { NotFoundPage } from './pages/status/NotFoundPage.tsx';
import { RouteErrorPage } from './pages/status/RouteErrorPage.tsx';

/**
 * The merchant dashboard: its own lazily loaded chunk, with its own router. Customers never
 * download it.
 */
const DashboardApp = lazy(() => import('./dashboard/DashboardApp.tsx'));

/** `/pay/<token>` and `/mock-bank/<token>`, as the server builds the customer links. */
const CUSTOMER_LINK = /^\/(pay|mock-bank)\/([^/]+)\/?$/;

/**
 * Picks the page from the address once. The customer pages never navigate inside the SPA (every
 * move is a full page load or another site), so they need no router: react-router cost them
 * 13 KB gzipped of an 80 KB budget, and even its `matchPath` alone 4 KB, because the module it
 * lives in is shared with the dashboard's router and so lands in the entry
 * (docs/decisions/016-customer-pages-without-a-router.md).
 */
const Page = ({ pathname }: { pathname: string }) => {
  const link = CUSTOMER_LINK.exec(pathname);
  if (link?.[1] === 'pay') return <HostedPaymentPage token={link[2] as string} />;
  if (link?.[1] === 'mock-bank') return <MockBankPage token={link[2] as string} />;
  if (pathname === '/dashboard' || pathname.startsWith('/dashboard/')) {
    return (
      <Suspense fallback={<DashboardLoading />}>
        <DashboardApp />
      </Suspense>
    );
  }
  return <NotFoundPage />;
};

/**
 * The site's root is the merchant's console (customers only ever arrive on their own links):
 * `/` becomes `/dashboard` in place, without a second page load, and the dashboard sends a
 * signed-out visitor on to its sign-in.
 */
const currentPath = (): string => {
  if (window.location.pathname === '/') window.history.replaceState(null, '', '/dashboard');
  return window.location.pathname;
};

export const App = () => (
  <ErrorBoundary fallback={<RouteErrorPage />}>
    <Page pathname={currentPath()} />
  </ErrorBoundary>
);
