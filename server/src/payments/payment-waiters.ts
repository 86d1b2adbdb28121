import { CHANNELS, type Notifications } from '../db/notifications.ts';

/** Why a wait ended: the waiting read re-reads the payment unless it timed out or the client left. */
export type WakeReason = 'changed' | 'due' | 'timeout' | 'closed' | 'draining';

/**
 * One waiting read's interest in one payment. Opened BEFORE the read it guards, so a change
 * committed between that read and the wait is not missed: its notification is kept until `next`.
 */
export interface PaymentWatch {
  /**
   * Resolves when the payment changed since the watch opened or the last `next` (`changed`),
   * when `dueInMs` passes (a timeline step falls due: the re-read catches it up), after
   * `timeoutMs`, when the client goes away (`closed`) or on shutdown (`draining`).
   */
  next(options: { timeoutMs: number; dueInMs?: number | undefined }): Promise<WakeReason>;
  close(): void;
}

/**
 * The process's waiting reads. A waiter is a promise, a timer or two and an entry in the
 * notification fan-out (db/notifications.ts), never a database connection. `payment_changed`
 * for its payment (from any process, on commit) wakes it; so does a reconnect of the listening
 * connection (a notification may have been missed: re-read).
 */
export interface PaymentWaiters {
  /** False when waiting is off (no listening connection) or the process is shutting down. */
  readonly accepting: boolean;
  /** `organizationId`: whose wait it is (counted in `waitingFor` until closed). */
  watch(paymentId: string, organizationId: string, signal?: AbortSignal): PaymentWatch;
  /** Shutdown: ends every wait now (`draining`), and every later one at once. */
  drain(): void;
  /** Open watches (for the bench and the memory measurement). */
  readonly waiting: number;
  /** Open watches of one organization in this process. */
  waitingFor(organizationId: string): number;
  /**
   * One organization's waits in the OTHER processes on the database, as last read (about a
   * second old: waiting-read-counts.ts). With `waitingFor`, its allowance
   * (RateLimitConfig.waitsPerOrganization), decided in memory.
   */
  waitingElsewhere(organizationId: string): number;
  /** This process's open watches per organization (what waiting-read-counts.ts publishes). */
  ownCounts(): ReadonlyMap<string, number>;
  /** The other processes' sums per organization, read by waiting-read-counts.ts. */
  heardElsewhere(counts: ReadonlyMap<string, number>): void;
}

export function createPaymentWaiters(notifications: Notifications): PaymentWaiters {
  const open = new Set<(reason: WakeReason) => void>();
  const perOrganization = new Map<string, number>();
  let elsewhere: ReadonlyMap<string, number> = new Map();
  let draining = false;
  return {
    get accepting() {
      return !draining;
    },
    get waiting() {
      return open.size;
    },
    waitingFor(organizationId) {
      return perOrganization.get(organizationId) ?? 0;
    },
    waitingElsewhere(organizationId) {
      return elsewhere.get(organizationId) ?? 0;
    },
    ownCounts() {
      return new Map(perOrganization);
    },
    heardElsewhere(counts) {
      elsewhere = counts;
    },
    watch(paymentId, organizationId, signal) {
      let pending: WakeReason | undefined = draining ? 'draining' : undefined;
      let wake: ((reason: WakeReason) => void) | undefined;
      const timers: NodeJS.Timeout[] = [];
      const hear = (reason: WakeReason) => {
        if (!wake) {
          // Nobody waits yet: kept for the next `next` ('changed' never hides 'draining').
          if (pending !== 'draining' && pending !== 'closed') pending = reason;
          return;
        }
        const resolve = wake;
        wake = undefined;
        for (const timer of timers.splice(0)) clearTimeout(timer);
        resolve(reason);
      };
      const unsubscribe = notifications.subscribe(CHANNELS.paymentChanged, paymentId, () => hear('changed'));
      const aborted = () => hear('closed');
      signal?.addEventListener('abort', aborted, { once: true });
      if (signal?.aborted) pending = 'closed';
      open.add(hear);
      perOrganization.set(organizationId, (perOrganization.get(organizationId) ?? 0) + 1);
      return {
        next({ timeoutMs, dueInMs }) {
          if (pending) {
            const reason = pending;
            if (reason === 'changed' || reason === 'due') pending = undefined;
            return Promise.resolve(reason);
          }
          return new Promise<WakeReason>((resolve) => {
            wake = resolve;
            timers.push(setTimeout(() => hear('timeout'), timeoutMs));
            if (dueInMs !== undefined && dueInMs < timeoutMs) {
              // A little after the step is due, so the re-read's catch-up includes it.
              timers.push(setTimeout(() => hear('due'), Math.max(0, dueInMs) + 5));
            }
          });
        },
        close() {
          if (!open.delete(hear)) return;
          const left = (perOrganization.get(organizationId) ?? 1) - 1;
          if (left > 0) perOrganization.set(organizationId, left);
          else perOrganization.delete(organizationId);
          for (const timer of timers.splice(0)) clearTimeout(timer);
          unsubscribe();
          signal?.removeEventListener('abort', aborted);
        },
      };
    },
    drain() {
      draining = true;
      for (const hear of open) hear('draining');
    },
  };
}

/** Waiting switched off (no listening connection): reads answer as without `Prefer: wait`. */
export const noPaymentWaiters: PaymentWaiters = {
  accepting: false,
  waiting: 0,
  waitingFor: () => 0,
  waitingElsewhere: () => 0,
  ownCounts: () => new Map(),
  heardElsewhere: () => {},
  watch: () => ({ next: () => Promise.resolve('draining'), close: () => {} }),
  drain: () => {},
};

/** Listening before the process serves, so no change after it is ready goes unheard. */
export async function startPaymentWaiters(notifications: Notifications): Promise<PaymentWaiters> {
  await notifications.listening(CHANNELS.paymentChanged);
  return createPaymentWaiters(notifications);
}
