/**
 * The kit's waiting reads (`If-None-Match` + `Prefer: wait`, as the service): a held read is a
 * condition re-checked whenever the kit changes something (a request, a control, `advanceTime`)
 * and on a short timer, so time moving by itself (real time, or fake timers advancing
 * `Date.now()`) wakes it too: a timeline step falls due, or the wait runs out.
 */
export class MockWaits {
  readonly #checks = new Set<() => void>();

  /** Re-checks every held read now. */
  wake(): void {
    for (const check of [...this.#checks]) check();
  }

  /**
   * Resolves once `changed()` is true, `now()` reaches `deadline` (the kit's clock), or `signal`
   * aborts. Re-checked on every `wake` and at least every `pollMs` of timer time.
   */
  until(changed: () => boolean, deadline: number, now: () => number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        this.#checks.delete(check);
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const check = () => {
        clearTimeout(timer);
        let over = true;
        try {
          over = changed() || now() >= deadline || signal?.aborted === true;
        } catch {
          // The payment is gone (reset): answer now, the read reports it.
        }
        if (over) return done();
        timer = setTimeout(check, Math.min(POLL_MS, Math.max(1, deadline - now())));
      };
      this.#checks.add(check);
      signal?.addEventListener('abort', done, { once: true });
      check();
    });
  }
}

/** How often a held read looks at the clock by itself. */
const POLL_MS = 100;
