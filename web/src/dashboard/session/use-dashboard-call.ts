import { useCallback, useEffect, useState } from 'react';
import { useLoadWith } from '../../api/use-load.ts';
import { type DashboardError, toDashboardError } from '../api/dashboard-error.ts';
import { useSessionState } from './session-context.tsx';

/**
 * Loads a page's data; an UNAUTHORIZED answer (the session ended) sends the merchant to sign in
 * again instead of showing an error.
 */
export const useDashboardLoad = <T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  options: { keepPrevious?: boolean } = {},
) => {
  const { expired } = useSessionState();
  const loaded = useLoadWith(load, key, toDashboardError, options);
  const { result } = loaded;
  useEffect(() => {
    if (result.state === 'failed' && result.error.kind === 'UNAUTHORIZED') expired();
  }, [result, expired]);
  return loaded;
};

export type Done<T> = { ok: true; value: T } | { ok: false };

/**
 * One state-changing call (a form submit, a button): pending while it runs, the failure to show
 * afterwards. `run` resolves to `{ ok: true, value }`, or `{ ok: false }` when the call failed. Behind a session,
 * UNAUTHORIZED means it ended; on the sign-in form it is just the answer to show
 * (`signedOutForm`).
 */
export const useDashboardAction = <A extends unknown[], T>(
  action: (...args: A) => Promise<T>,
  { signedOutForm = false }: { signedOutForm?: boolean } = {},
) => {
  const { expired } = useSessionState();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<DashboardError | null>(null);

  const run = useCallback(
    async (...args: A): Promise<Done<T>> => {
      setPending(true);
      setError(null);
      try {
        return { ok: true, value: await action(...args) };
      } catch (thrown) {
        const failure = toDashboardError(thrown);
        if (failure.kind === 'UNAUTHORIZED' && !signedOutForm) expired();
        else setError(failure);
        return { ok: false };
      } finally {
        setPending(false);
      }
    },
    [action, expired, signedOutForm],
  );

  const clearError = useCallback(() => setError(null), []);
  return { run, pending, error, clearError };
};
