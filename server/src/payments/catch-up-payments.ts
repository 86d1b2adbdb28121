import { type Change, catchUp } from '@pis/shared';
import type { EntityManager } from '../db/orm.ts';
import { type ChangeDeps, changePayments } from './change-payments.ts';
import { duePaymentIds, type LockedPayment, type PaymentLock } from './payment-store.ts';

/**
 * The one catch-up rule: a payment takes whatever became due (timeline steps, expiry) up to
 * `now`, or, while a provider call is claimed and unanswered, up to the claim's time (its bank
 * is being told about a decision made then). Every event starts with it.
 */
export const catchUpHeld = ({ record, claim }: LockedPayment, now: Date): Change =>
  catchUp(record, heldUntil(claim?.claimedAt, now));

/** How far a payment's own timeline may run: to `now`, or to an earlier claim's time. */
export const heldUntil = (claimedAt: Date | undefined, now: Date): Date =>
  claimedAt && claimedAt.getTime() < now.getTime() ? claimedAt : now;

/**
 * Catches up these payments, those still due, in one transaction through the change pipeline
 * (one lock statement, one read, two writes whatever their number: a thousand steps due at the
 * same second would cost a thousand transactions one by one). Postgres re-checks `next_due_at`
 * on rows it waited for, so a step applied by whoever held the lock is not applied again:
 * duplicates and late jobs change nothing. Returns how many changed.
 */
export async function catchUpPayments(deps: ChangeDeps, paymentIds: readonly string[]): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const { changed } = await catchUpLocked(deps, { ids: paymentIds, dueBy: deps.clock.now() });
  return changed;
}

/** One payment's catch-up (the worker's jobs, tests): catchUpPayments of one. */
export async function catchUpPayment(deps: ChangeDeps, paymentId: string): Promise<void> {
  await catchUpPayments(deps, [paymentId]);
}

/**
 * The sweep's catch-up: up to `limit` payments that are due, oldest due first, skipping any row
 * another transaction holds (FOR UPDATE SKIP LOCKED). So any number of processes sweep at once
 * without waiting on each other, and nothing holds the sweep for anyone: a killed process's
 * transaction (and its row locks) ends with its connection, and the next sweep of any other
 * process takes those rows. `found` is how many rows it locked (fewer than `limit`: none left).
 */
export async function catchUpDuePayments(
  deps: ChangeDeps,
  limit: number,
): Promise<{ found: number; changed: number }> {
  return catchUpLocked(deps, { due: deps.clock.now(), limit });
}

async function catchUpLocked(
  deps: ChangeDeps,
  lock: PaymentLock,
): Promise<{ found: number; changed: number }> {
  const decided = await changePayments(deps, lock, (payment, now) => ({ change: catchUpHeld(payment, now) }));
  return {
    found: decided.length,
    changed: decided.filter(({ change }) => change.history.length > 0).length,
  };
}

/** More overdue payments than this in one organization means the worker is down: catch up the oldest. */
const MAX_CATCH_UP_PER_LIST = 500;

/** Catches up the organization's overdue payments (the list and the dashboard's overview read after it). */
export async function catchUpOverdue(deps: ChangeDeps, organizationId: string): Promise<void> {
  const overdue = await duePaymentIds(
    deps.em.fork(),
    deps.clock.now(),
    MAX_CATCH_UP_PER_LIST,
    organizationId,
  );
  await catchUpPayments(deps, overdue);
}

/** Unfinished payments whose `next_due_at` is at or before `now`, oldest due first. */
export async function findDuePaymentIds(em: EntityManager, now: Date, limit: number): Promise<string[]> {
  return duePaymentIds(em.fork(), now, limit);
}
