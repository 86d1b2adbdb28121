import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Rate-limit windows are fixed and aligned to the epoch (rate-limits/rate-limit-store.ts; the
 * database's clock is this machine's). A test that counts several requests in one window starts
 * with at least `needMs` of the current window left, else at the start of the next: on a slow
 * machine its requests could otherwise fall either side of a boundary (seen in clean-clone runs).
 * The wait can be as long as `needMs`: the test's own timeout must allow for it (60 s windows).
 */
export async function withinOneWindow(windowSeconds: number, needMs: number): Promise<void> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await sleep(left + 50);
}
