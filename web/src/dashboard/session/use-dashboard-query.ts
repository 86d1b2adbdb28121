import { keepPreviousData, type QueryKey, type UseQueryOptions, useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Loaded } from '../../api/use-load.ts';
import { type DashboardError, toDashboardError } from '../api/dashboard-error.ts';
import { useSessionState } from './session-context.tsx';

/**
 * A page's data through TanStack Query, in the shape the pages render (`Loaded`): `stale` while
 * a newer input loads behind the previous answer (`keepPrevious`, e.g. another filter). An
 * UNAUTHORIZED answer (the session ended) sends the merchant to sign in again.
 */
export const useDashboardQuery = <T, K extends QueryKey>(
  options: UseQueryOptions<T, Error, T, K>,
  { keepPrevious = false }: { keepPrevious?: boolean } = {},
) => {
  const { expired } = useSessionState();
  const query = useQuery({ ...options, ...(keepPrevious ? { placeholderData: keepPreviousData } : {}) });
  const error = query.error ? toDashboardError(query.error) : null;
  useEffect(() => {
    if (error?.kind === 'UNAUTHORIZED') expired();
  }, [error?.kind, expired]);

  // Data once there is some (a failed refresh behind it keeps it on screen), else the failure.
  const result: Loaded<T, DashboardError> =
    query.data !== undefined
      ? {
          state: 'ready',
          data: query.data,
          key: JSON.stringify(options.queryKey),
          stale: query.isPlaceholderData,
        }
      : error
        ? { state: 'failed', error }
        : { state: 'loading' };
  return { result, reload: () => void query.refetch() };
};
