import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect } from 'react';
import { useLoadWith } from '../../api/use-load.ts';
import { toDashboardError } from '../api/dashboard-error.ts';
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
 * One state-changing call (a form submit, a button) as a TanStack Query mutation: pending while
 * it runs, the failure to show afterwards, never retried (createDashboardQueryClient), and after
 * a success every cached dashboard read is marked stale, so a list or overview shown next reads
 * again instead of showing what the change made untrue. `run` resolves to `{ ok: true, value }`,
 * or `{ ok: false }` when the call failed. Behind a session, UNAUTHORIZED means it ended; on the
 * sign-in form it is just the answer to show (`signedOutForm`).
 */
export const useDashboardAction = <A extends unknown[], T>(
  action: (...args: A) => Promise<T>,
  { signedOutForm = false }: { signedOutForm?: boolean } = {},
) => {
  const { expired } = useSessionState();
  const queryClient = useQueryClient();
  const mutation = useMutation<T, unknown, A>({
    mutationFn: (args) => action(...args),
    onSuccess: () => queryClient.invalidateQueries(),
  });
  const { mutateAsync, reset } = mutation;
  const failure = mutation.error === null ? null : toDashboardError(mutation.error);
  // UNAUTHORIZED behind a session sends the merchant to sign in; it is never shown as an error.
  const error = failure && (failure.kind !== 'UNAUTHORIZED' || signedOutForm) ? failure : null;

  const run = useCallback(
    async (...args: A): Promise<Done<T>> => {
      try {
        return { ok: true, value: await mutateAsync(args) };
      } catch (thrown) {
        if (toDashboardError(thrown).kind === 'UNAUTHORIZED' && !signedOutForm) expired();
        return { ok: false };
      }
    },
    [mutateAsync, expired, signedOutForm],
  );

  return { run, pending: mutation.isPending, error, clearError: reset };
};
