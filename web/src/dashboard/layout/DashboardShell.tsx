import { useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { useDocumentTitle } from '../../components/use-document-title.ts';
import { UnverifiedEmailBanner } from '../account/AccountSecurity.tsx';
import { dashboardApi, type Session } from '../api/dashboard-api.ts';
import { toDashboardError } from '../api/dashboard-error.ts';
import { useSessionState } from '../session/session-context.tsx';

const NAV = [
  { to: '/dashboard', label: 'Overview', end: true },
  { to: '/dashboard/payments', label: 'Payments', end: false },
  { to: '/dashboard/api-keys', label: 'API keys', end: false },
  { to: '/dashboard/quick-start', label: 'Quick start', end: false },
  { to: '/dashboard/settings', label: 'Settings', end: false },
  { to: '/dashboard/team', label: 'Team', end: false },
  { to: '/dashboard/logs/requests', label: 'Request log', end: false },
  { to: '/dashboard/logs/audit', label: 'Audit log', end: false },
];

interface DashboardShellProps {
  title: string;
  children: ReactNode;
}

/** Frame of every signed-in dashboard page: the organization, the sections, sign-out. */
export const DashboardShell = ({ title, children }: DashboardShellProps) => {
  const { current, signOut, signedIn } = useSessionState();
  const queryClient = useQueryClient();
  const [switching, setSwitching] = useState(false);
  const [modeError, setModeError] = useState<string | null>(null);
  const navigate = useNavigate();
  const [leaving, setLeaving] = useState(false);
  const nav = useRef<HTMLElement>(null);
  useDocumentTitle(`${title} · Dashboard`);
  // On a narrow screen the sections are one line that scrolls within itself: show the current one.
  useEffect(() => {
    const current = nav.current?.querySelector<HTMLElement>('[aria-current="page"]');
    const line = nav.current;
    if (current && line && line.scrollWidth > line.clientWidth) {
      const shown = line.getBoundingClientRect();
      const link = current.getBoundingClientRect();
      line.scrollLeft += link.left - shown.left - (shown.width - link.width) / 2;
    }
  }, []);
  const organization = current.state === 'signed-in' ? current.session.organization : null;

  const mode = current.state === 'signed-in' ? current.session.mode : 'test';
  // Test or live payments, like the consoles merchants know: kept on the session, every page reloads.
  const onMode = async (next: Session['mode']) => {
    if (next === mode) return;
    setSwitching(true);
    setModeError(null);
    try {
      signedIn(await dashboardApi.setMode(next));
      await queryClient.resetQueries();
    } catch (error) {
      setModeError(toDashboardError(error).message);
    } finally {
      setSwitching(false);
    }
  };

  const onSignOut = async () => {
    setLeaving(true);
    await signOut().catch(() => undefined);
    navigate('/dashboard/sign-in', { replace: true });
  };

  return (
    <div className="dash">
      <header className="dash-bar">
        <span className="dash-bar__brand" title={organization?.name}>
          {organization?.name ?? 'Dashboard'}
        </span>
        <nav aria-label="Dashboard" className="dash-nav" ref={nav}>
          <ul>
            {NAV.map(({ to, label, end }) => (
              <li key={to}>
                <NavLink to={to} end={end} className="dash-nav__link">
                  {label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <fieldset className="dash-bar__mode" aria-label="Payments shown" disabled={switching}>
          {(['test', 'live'] as const).map((option) => (
            <button
              key={option}
              type="button"
              className="dash-bar__mode-option"
              aria-pressed={mode === option}
              onClick={() => onMode(option)}
            >
              {option === 'test' ? 'Test data' : 'Live data'}
            </button>
          ))}
        </fieldset>
        <button type="button" className="dash-bar__signout" onClick={onSignOut} disabled={leaving}>
          Sign out
        </button>
      </header>
      <main className="dash-main">
        {modeError ? (
          <div className="inline-problem" role="alert">
            <p>{modeError}</p>
          </div>
        ) : null}
        {mode === 'live' ? (
          <p className="notice-line dash-live-line" role="status">
            Live data: these payments move real money. Switch to test data to practise.
          </p>
        ) : null}
        <UnverifiedEmailBanner />
        {children}
      </main>
    </div>
  );
};

/** Frame of the signed-out pages (sign-in, sign-up): one narrow card. */
export const AccountShell = ({ title, children }: DashboardShellProps) => {
  useDocumentTitle(`${title} · Dashboard`);
  return (
    <div className="shell">
      <header className="topbar">
        <span className="topbar__brand">Payments dashboard</span>
      </header>
      <main className="page">
        <div className="card">{children}</div>
      </main>
    </div>
  );
};
