import { etagMatches, type Payment, paymentEtag, toPayment } from '@pis/shared';
import type { RateLimitConfig } from '../config.ts';
import { type BudgetSettings, budgetOf } from '../rate-limits/organization-budgets.ts';
import { type LoadedPayment, loadedPayment, loadPayment, type PaymentScope } from './load-payment.ts';
import type { PaymentJson } from './payment-store.ts';
import type { PaymentWaiters } from './payment-waiters.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';
import { refreshPayment } from './refresh-payment.ts';

/** A read that may wait for a change (DESIGN.md "Live reads"; headers read in http/live-read.ts). */
export interface WaitingRead {
  waiters: PaymentWaiters;
  /** The ETag the client holds. */
  ifNoneMatch: string | undefined;
  /** `Prefer: wait`, already capped at MAX_WAIT_SECONDS; undefined when not asked. */
  waitSeconds: number | undefined;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | undefined;
}

/**
 * The wait a read may have: none (it answers at once, as one that did not ask, so without
 * Preference-Applied) when this process takes no waiters (waiting off, or shutting down), once
 * the caller's organization holds its allowance of waits (`waitsPerOrganization`, or the
 * organization's own: organization-budgets.ts) in this process and the others together (the
 * others' as last read, about a second old: waiting-read-counts.ts; no round trip here), or once the process holds `waitsPerProcess`
 * (however many organizations there are, memory stays bounded). Decided once, where the read
 * starts, so the answer's headers agree with what happened: a wait that shutdown cuts short was
 * still honoured, and says so (else an SDK would poll for the rest of its wait).
 */
export function withinWaitAllowance(
  wait: WaitingRead,
  caller: { organizationId: string; budgets: BudgetSettings },
  limits: RateLimitConfig,
): WaitingRead {
  const { waiters } = wait;
  const allowed =
    waiters.accepting &&
    (!limits.enabled ||
      (waiters.waiting < limits.waitsPerProcess &&
        waiters.waitingFor(caller.organizationId) + waiters.waitingElsewhere(caller.organizationId) <
          budgetOf(limits, caller.budgets, 'waits')));
  return allowed ? wait : { ...wait, waitSeconds: undefined };
}

/** Whether a read waits: it names an ETag and asks for time (within its allowance: withinWaitAllowance). */
export const honoursWait = (wait: WaitingRead | undefined): boolean =>
  wait?.ifNoneMatch !== undefined && wait.waitSeconds !== undefined;

/**
 * GET /payments/{id}: caught up to now and refreshed from the provider first, so no reader sees
 * an overdue status; a provider failure during that refresh is not the reader's problem.
 *
 * With a waiting read whose ETag is still current, holds until the payment changes (in any
 * process), a timeline step falls due, the wait runs out or the process shuts down, and then
 * answers the payment as it is: the client can always read the body.
 */
export async function getPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  /** What the API key lookup read with `preloadPayment` (undefined: nothing was preloaded). */
  preloaded?: unknown,
  wait?: WaitingRead,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  if (wait && honoursWait(wait)) return waitForChange(deps, scope, wait);
  const loaded =
    preloaded === undefined
      ? await loadPayment(deps.em, scope)
      : loadedPayment(preloaded as PaymentJson | null);
  return (await readCurrent(deps, scope, loaded)).payment;
}

/** After a wake for a step that is due yet did not move (held by a provider call): look again no sooner. */
const DUE_RECHECK_MS = 1_000;

async function waitForChange(
  deps: PaymentsDeps,
  scope: PaymentScope & { organizationId: string },
  wait: WaitingRead,
): Promise<Payment> {
  // Watching before reading (not the key lookup's preload, which is older): a change committed
  // after this read's snapshot notifies after the watch exists, so it cannot be missed.
  const watch = wait.waiters.watch(scope.paymentId, scope.organizationId, wait.signal);
  try {
    // Another organization's payment (or none) is 404 here, at once.
    let current = await readCurrent(deps, scope, await loadPayment(deps.em, scope));
    // Wall time, not the injectable clock: how long a request is held is the client's time.
    const deadline = performance.now() + (wait.waitSeconds ?? 0) * 1000;
    let recheckFloorMs = 0;
    while (etagMatches(wait.ifNoneMatch, paymentEtag(current.payment))) {
      const timeoutMs = deadline - performance.now();
      if (timeoutMs <= 0) break;
      const dueInMs = current.nextDueAt
        ? Math.max(current.nextDueAt.getTime() - deps.clock.now().getTime(), recheckFloorMs)
        : undefined;
      const reason = await watch.next({ timeoutMs, dueInMs });
      if (reason === 'timeout' || reason === 'closed') break;
      // The read's catch-up applies what fell due; a change by anyone is read as committed.
      current = await readCurrent(deps, scope, await loadPayment(deps.em, scope));
      if (reason === 'draining') break;
      recheckFloorMs = reason === 'due' ? DUE_RECHECK_MS : 0;
    }
    return current.payment;
  } finally {
    watch.close();
  }
}

async function readCurrent(deps: PaymentsDeps, scope: PaymentScope, loaded: LoadedPayment) {
  const current = await refreshPayment(deps, scope, loaded, 'quiet');
  const payment = toPayment(current.record, current.history);
  // No ETag here: a read that does not wait needs only the answer's (http/live-read.ts).
  return { payment, nextDueAt: current.record.nextDueAt };
}

/**
 * POST /payments/{id}/sync: asks the provider now. Its failure is reported as 502
 * PROVIDER_UNAVAILABLE (the payment is unchanged); an approved provider this process has no
 * adapter for is 503 PROVIDER_NOT_CONFIGURED. Finished and still-PENDING payments have nothing
 * to ask, and are returned caught up.
 */
export async function syncPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
): Promise<Payment> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const current = await refreshPayment(deps, scope, await loadPayment(deps.em, scope), 'report');
  return toPayment(current.record, current.history);
}
