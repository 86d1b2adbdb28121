import { useCallback, useEffect, useRef, useState } from 'react';
import { isAbort, type PageError, toPageError } from './page-error.ts';

export type Loaded<T, E = PageError> =
  | { state: 'loading' }
  | { state: 'failed'; error: E }
  /** `key` of the request that produced `data`; `stale` while a newer request runs. */
  | { state: 'ready'; data: T; key: string; stale: boolean };

interface LoadOptions {
  /** Keep showing the last data while a new key loads (search results), instead of a skeleton. */
  keepPrevious?: boolean;
}

/**
 * Loads data for a page and reloads it on demand. `key` says when the request changes;
 * a newer request cancels the older one, so a slow answer never overwrites a newer one.
 * `toError` turns a failure into what the page shows (the dashboard reads more kinds than
 * the customer pages).
 */
export const useLoadWith = <T, E>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  toError: (error: unknown) => E,
  options: LoadOptions = {},
) => {
  const [result, setResult] = useState<Loaded<T, E>>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const toErrorRef = useRef(toError);
  toErrorRef.current = toError;
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
        setResult({ state: 'failed', error: toErrorRef.current(error) });
      },
    );
    return () => controller.abort();
  }, [key, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { result, reload };
};

/** useLoadWith for the customer pages, whose failures are PageErrors. */
export const useLoad = <T>(
  load: (signal: AbortSignal) => Promise<T>,
  key: string,
  options: LoadOptions = {},
) => useLoadWith(load, key, toPageError, options);
