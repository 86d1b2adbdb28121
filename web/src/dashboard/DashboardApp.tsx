import { QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { SignInPage } from './account/SignInPage.tsx';
import { SignOutPage } from './account/SignOutPage.tsx';
import { SignUpPage } from './account/SignUpPage.tsx';
import { createDashboardQueryClient } from './api/dashboard-queries.ts';
import { ApiKeysPage } from './api-keys/ApiKeysPage.tsx';
import { AuditLogPage } from './logs/AuditLogPage.tsx';
import { RequestLogEntryPage } from './logs/RequestLogEntryPage.tsx';
import { RequestLogPage } from './logs/RequestLogPage.tsx';
import { OverviewPage } from './overview/OverviewPage.tsx';
import { NewPaymentPage } from './payments/NewPaymentPage.tsx';
import { PaymentPage } from './payments/PaymentPage.tsx';
import { PaymentsPage } from './payments/PaymentsPage.tsx';
import { QuickStartPage } from './quick-start/QuickStartPage.tsx';
import { RequireSession } from './session/RequireSession.tsx';
import { SessionProvider } from './session/session-context.tsx';
import { SettingsPage } from './settings/SettingsPage.tsx';
import { AcceptInvitationPage } from './team/AcceptInvitationPage.tsx';
import { TeamPage } from './team/TeamPage.tsx';
import './dashboard.css';
import { ForgotPasswordPage } from './account/ForgotPasswordPage.tsx';
import { ResetPasswordPage } from './account/ResetPasswordPage.tsx';
import { VerifyEmailPage } from './account/VerifyEmailPage.tsx';

/** The dashboard's pages, relative to /dashboard. */
const DashboardRoutes = () => (
  <SessionProvider>
    <Routes>
      <Route path="sign-up" element={<SignUpPage />} />
      <Route path="sign-in" element={<SignInPage />} />
      <Route path="sign-out" element={<SignOutPage />} />
      <Route path="forgot-password" element={<ForgotPasswordPage />} />
      <Route path="reset-password" element={<ResetPasswordPage />} />
      <Route path="verify-email" element={<VerifyEmailPage />} />
      <Route path="accept-invitation" element={<AcceptInvitationPage />} />
      <Route element={<RequireSession />}>
        <Route index element={<OverviewPage />} />
        <Route path="api-keys" element={<ApiKeysPage />} />
        <Route path="payments" element={<PaymentsPage />} />
        <Route path="payments/new" element={<NewPaymentPage />} />
        <Route path="payments/:paymentId" element={<PaymentPage />} />
        <Route path="quick-start" element={<QuickStartPage />} />
        <Route path="settings" element={<SettingsPage />} />
        <Route path="team" element={<TeamPage />} />
        <Route path="logs/requests" element={<RequestLogPage />} />
        <Route path="logs/requests/:id" element={<RequestLogEntryPage />} />
        <Route path="logs/audit" element={<AuditLogPage />} />
      </Route>
      <Route path="*" element={<Navigate to="/dashboard" replace />} />
    </Routes>
  </SessionProvider>
);

/**
 * The merchant dashboard under /dashboard: its own chunk (app.tsx loads it lazily), so none of
 * this reaches the customer pages' JavaScript. It is the only part of the SPA that navigates
 * client-side, so the router lives here and nowhere else.
 */
const DashboardApp = () => {
  const [queryClient] = useState(createDashboardQueryClient);
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route path="/dashboard/*" element={<DashboardRoutes />} />
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
};

export default DashboardApp;
