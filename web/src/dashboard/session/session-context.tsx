import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { dashboardApi, type Session } from '../api/dashboard-api.ts';
import { rememberCsrfToken } from '../api/dashboard-client.ts';
import { toDashboardError } from '../api/dashboard-error.ts';

type SessionState =
  | { state: 'checking' }
  /** `notice`: why the merchant is asked to sign in (session ended, organization inactive). */
  | { state: 'signed-out'; notice: string | null }
  | { state: 'signed-in'; session: Session }
  | { state: 'unreachable'; message: string };

interface SessionContextValue {
  current: SessionState;
  /** After sign-up or sign-in: the server's answer is the new session. */
  signedIn(session: Session): void;
  signOut(): Promise<void>;
  /** A call answered UNAUTHORIZED: the session ended (idle or absolute expiry, signed out elsewhere). */
  expired(): void;
  recheck(): void;
}

const SESSION_ENDED = 'Your session ended. Sign in again to continue.';

const SessionContext = createContext<SessionContextValue | null>(null);

/** Who is signed in, checked once when the dashboard loads and kept current by its pages. */
export const SessionProvider = ({ children }: { children: ReactNode }) => {
  const [current, setCurrent] = useState<SessionState>({ state: 'checking' });
  const [attempt, setAttempt] = useState(0);
  // Whoever signs in next in this tab must never see the previous organization's cached pages.
  const queryClient = useQueryClient();

  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the trigger of a re-check
  useEffect(() => {
    const controller = new AbortController();
    dashboardApi.session(controller.signal).then(
      (session) => {
        rememberCsrfToken(session.csrfToken);
        setCurrent({ state: 'signed-in', session });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const failure = toDashboardError(error);
        rememberCsrfToken(null);
        setCurrent(
          failure.kind === 'UNREACHABLE' || failure.kind === 'UNEXPECTED'
            ? { state: 'unreachable', message: failure.message }
            : // FORBIDDEN: the organization is not active; the server's words say so.
              { state: 'signed-out', notice: failure.kind === 'FORBIDDEN' ? failure.message : null },
        );
      },
    );
    return () => controller.abort();
  }, [attempt]);

  const signedIn = useCallback((session: Session) => {
    rememberCsrfToken(session.csrfToken);
    setCurrent({ state: 'signed-in', session });
  }, []);

  const signOut = useCallback(async () => {
    try {
      await dashboardApi.signOut();
    } finally {
      rememberCsrfToken(null);
      queryClient.clear();
      setCurrent({ state: 'signed-out', notice: null });
    }
  }, [queryClient]);

  const expired = useCallback(() => {
    rememberCsrfToken(null);
    queryClient.clear();
    setCurrent({ state: 'signed-out', notice: SESSION_ENDED });
  }, [queryClient]);

  const recheck = useCallback(() => {
    setCurrent({ state: 'checking' });
    setAttempt((n) => n + 1);
  }, []);

  const value = useMemo(
    () => ({ current, signedIn, signOut, expired, recheck }),
    [current, signedIn, signOut, expired, recheck],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
};

export const useSessionState = (): SessionContextValue => {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSessionState outside SessionProvider');
  return value;
};

/** The signed-in session; only for pages inside RequireSession. */
export const useSession = (): Session => {
  const { current } = useSessionState();
  if (current.state !== 'signed-in') throw new Error('useSession outside RequireSession');
  return current.session;
};
