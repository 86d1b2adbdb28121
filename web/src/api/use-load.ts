import { useCallback, useEffect, useRef, useState } from 'react';
import { isAbort, type PageError, toPageError } from './page-error.ts';

export type Loaded<T> =
  | { state: 'loading' }
  | { state: 'failed'; error: PageError }
  /** `key` of the request that produced `data`; `stale` while a newer request runs. */
  | { state: 'ready'; data: T; key: string; stale: boolean };

interface LoadOptions {
  /** Keep showing the last data while a new key loads (search results), instead of a skeleton. */
  keepPrevious?: boolean;
}

/**
 * Loads data for a page and reloads it on demand. `key` says when the request changes;
 * a newer request cancels the older one, so a slow answer never overwrites a newer one.
 */
export const useLoad = <T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  options: LoadOptions = {},
) => {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const keepPrevious = options.keepPrevious ?? false;

  // biome-ignore lint/correctness/useExhaustiveDependencies: key and attempt are the triggers by design
  useEffect(() => {
    const controller = new AbortController();
    setResult((previous) =>
      keepPrevious && previous.state === 'ready' ? { ...previous, stale: true } : { state: 'loading' },
    );
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setResult({ state: 'ready', data, key, stale: false });
      },
      (error: unknown) => {
        if (controller.signal.aborted || isAbort(error)) return;
        setResult({ state: 'failed', error: toPageError(error) });
      },
    );
    return () => controller.abort();
  }, [key, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { result, reload };
};
