import { etagMatches, jsonEtag, type Payment, Payment as PaymentSchema, toPayment } from '@pis/shared';
import type { RateLimitConfig } from '../config.ts';
import { type BudgetSettings, budgetOf } from '../rate-limits/organization-budgets.ts';
import {
  type LoadedPayment,
  loadPayment,
  loadPaymentRead,
  type PaymentScope,
  preloadedPaymentRead,
} from './load-payment.ts';
import { answerKept, type StoredAnswer, storePaymentAnswer } from './payment-store.ts';
import type { PaymentWaiters } from './payment-waiters.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';
import { dueByItself, refreshPayment } from './refresh-payment.ts';

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
 * A payment's answer: its JSON as the API document has it (the schema's keys in its order, and
 * nothing else, as tRPC's output validation made it before) and the ETag of that text.
 */
export function paymentAnswer(payment: Payment): StoredAnswer {
  const text = JSON.stringify(PaymentSchema.parse(payment));
  return { text, etag: jsonEtag(text) };
}

/**
 * GET /payments/{id}: caught up to now and refreshed from the provider first, so no reader sees
 * an overdue status; a provider failure during that refresh is not the reader's problem.
 *
 * The answer is made once per version of the payment (issue 32's "answer's JSON made once"): the
 * first read after a change makes it and stores it (payment_answer); the reads after it, while
 * nothing changes and nothing falls due, send it as it was stored, without the history, the
 * presenter, the schema's check or a second serialisation. A change moves the version on, so a
 * stored answer is never sent for a payment that changed since.
 *
 * With a waiting read whose ETag is still current, holds until the payment changes (in any
 * process), a timeline step falls due, the wait runs out or the process shuts down, and then
 * answers the payment as it is: the client can always read the body.
 */
export async function getPaymentAnswer(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  /** What the API key lookup read with `preloadPayment` (undefined: nothing was preloaded). */
  preloaded?: unknown,
  wait?: WaitingRead,
): Promise<StoredAnswer> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  if (wait && honoursWait(wait)) return (await waitForChange(deps, scope, wait)).answer;
  const read =
    preloaded === undefined ? await loadPaymentRead(deps.em, scope) : preloadedPaymentRead(preloaded);
  if ('quiet' in read) {
    if (!dueByItself(read, deps.clock.now())) return read.stored;
    // A step fell due since: the whole payment, caught up (its next read stores the answer again).
    return (await readCurrent(deps, scope, await loadPayment(deps.em, scope))).answer;
  }
  const current = await refreshPayment(deps, scope, read, 'quiet');
  if (current !== read) {
    // Changed by the refresh: the payment as the change left it, with its whole history.
    const changed = current as LoadedPayment;
    return paymentAnswer(toPayment(changed.record, changed.history));
  }
  if (read.stored) return read.stored;
  const answer = paymentAnswer(toPayment(read.record, read.history));
  if (answerKept(read.record, deps.clock.now())) keepAnswer(deps, paymentId, read.version, answer);
  return answer;
}

/** The payment as GET /payments/{id} reads it, as a value, and its ETag (the dashboard's page). */
export async function getPayment(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  paymentId: string,
  wait?: WaitingRead,
): Promise<{ payment: Payment; etag: string }> {
  const scope = { paymentId, organizationId: caller.organizationId, mode: modeOf(caller) };
  const { payment, answer } =
    wait && honoursWait(wait)
      ? await waitForChange(deps, scope, wait)
      : await readCurrent(deps, scope, await loadPayment(deps.em, scope));
  return { payment, etag: answer.etag };
}

/**
 * Answers being stored, after the read that made them was answered (a first read of a version
 * waits for no write). At most STORING_AT_MOST at once per process: past it an answer is not
 * kept, and a later read of that version makes it again, so a flood of first reads (a merchant
 * walking through old payments) cannot queue writes without bound.
 */
const storing = new Set<Promise<void>>();
export const STORING_AT_MOST = 16;
/** A failing store (the database read-only during a failover) is told at most once a minute. */
const STORE_FAILURE_LOG_EVERY_MS = 60_000;
let storeFailureLoggedAt = Number.NEGATIVE_INFINITY;

function keepAnswer(deps: PaymentsDeps, paymentId: string, version: number, answer: StoredAnswer): void {
  if (storing.size >= STORING_AT_MOST) return;
  const store: Promise<void> = storePaymentAnswer(deps.em.fork(), paymentId, version, answer)
    .catch((error: unknown) => {
      const now = performance.now();
      if (now - storeFailureLoggedAt < STORE_FAILURE_LOG_EVERY_MS) return;
      storeFailureLoggedAt = now;
      deps.logger.warn(
        { err: error, paymentId },
        'could not store a payment answer (the next read makes it again)',
      );
    })
    .finally(() => storing.delete(store));
  storing.add(store);
}

/** For tests: wait for the answers being stored. */
export async function settleAnswerStores(): Promise<void> {
  await Promise.all([...storing]);
}

/** After a wake for a step that is due yet did not move (held by a provider call): look again no sooner. */
const DUE_RECHECK_MS = 1_000;

async function waitForChange(
  deps: PaymentsDeps,
  scope: PaymentScope & { organizationId: string },
  wait: WaitingRead,
): Promise<{ payment: Payment; answer: StoredAnswer }> {
  // Watching before reading (not the key lookup's preload, which is older): a change committed
  // after this read's snapshot notifies after the watch exists, so it cannot be missed.
  const watch = wait.waiters.watch(scope.paymentId, scope.organizationId, wait.signal);
  try {
    // Another organization's payment (or none) is 404 here, at once.
    let current = await readCurrent(deps, scope, await loadPayment(deps.em, scope));
    // Wall time, not the injectable clock: how long a request is held is the client's time.
    const deadline = performance.now() + (wait.waitSeconds ?? 0) * 1000;
    let recheckFloorMs = 0;
    while (etagMatches(wait.ifNoneMatch, current.answer.etag)) {
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
    return current;
  } finally {
    watch.close();
  }
}

async function readCurrent(deps: PaymentsDeps, scope: PaymentScope, loaded: LoadedPayment) {
  const current = await refreshPayment(deps, scope, loaded, 'quiet');
  const payment = toPayment(current.record, current.history);
  return { payment, answer: paymentAnswer(payment), nextDueAt: current.record.nextDueAt };
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
