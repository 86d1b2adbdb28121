/** Throws the signal's reason (an `AbortError` by default) if it has been aborted. */
export const throwIfAborted = (signal: AbortSignal | undefined): void => {
  if (signal?.aborted) throw signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
};

/**
 * Waits `ms` on a plain `setTimeout` (so fake timers drive it) and rejects with the signal's
 * reason as soon as the signal aborts.
 */
export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
