import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { LoadingStatus } from './components/Skeleton.tsx';
import { HostedPaymentPage } from './pages/hosted/HostedPaymentPage.tsx';
import { MockBankPage } from './pages/mock-bank/MockBankPage.tsx';
import { NotFoundPage } from './pages/status/NotFoundPage.tsx';
import { RouteErrorPage } from './pages/status/RouteErrorPage.tsx';

/**
 * The customer-facing addresses; the server builds links to the first two.
 * Declarative mode on purpose: the pages load their own data, and the data router
 * (createBrowserRouter) costs 17 KB more gzipped, which the 100 KB budget cannot afford.
 * The merchant dashboard is a lazily loaded chunk: customers never download it.
 */
const DashboardApp = lazy(() => import('./dashboard/DashboardApp.tsx'));

export const AppRoutes = () => (
  <ErrorBoundary fallback={<RouteErrorPage />}>
    <Routes>
      <Route path="/pay/:token" element={<HostedPaymentPage />} />
      <Route path="/mock-bank/:token" element={<MockBankPage />} />
      <Route
        path="/dashboard/*"
        element={
          <Suspense fallback={<LoadingStatus label="Loading dashboard…" />}>
            <DashboardApp />
          </Suspense>
        }
      />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  </ErrorBoundary>
);

export const App = () => (
  <BrowserRouter>
    <AppRoutes />
  </BrowserRouter>
);
