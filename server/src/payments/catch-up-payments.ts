import { LockMode } from '@mikro-orm/core';
import { catchUp } from '@pis/shared';
import type { Clock } from '../clock.ts';
import { Payment } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { insertHistoryRows, toPaymentRecord, writeLifecycleState } from './payment-record.ts';
import type { DuePayment, PaymentBatchScheduler } from './payment-scheduler.ts';

export interface CatchUpPaymentsDeps {
  em: EntityManager;
  clock: Clock;
  scheduler: PaymentBatchScheduler;
  logger: Logger;
}

/**
 * The worker's catch-up, for many payments at once: what `catchUpPayment` does for
 * one, in one transaction for the lot, because a thousand steps due at the same second cost a
 * thousand transactions of ~9 round trips each the other way. Same rules: rows locked (FOR
 * UPDATE, in id order so two batches never deadlock), `now` read after the lock, the shared
 * `catchUp` decides, history appended after the last entry; the scheduler hears about the next
 * due times after the commit. Idempotent: a payment with nothing due is left untouched.
 */
export async function catchUpPayments(
  deps: CatchUpPaymentsDeps,
  paymentIds: readonly string[],
): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const { changed } = await catchUpLocked(deps, (em) =>
    // Postgres re-checks `next_due_at` on rows it waited for, so a step applied by whoever held
    // the lock is not applied again.
    em.find(
      Payment,
      { id: { $in: [...new Set(paymentIds)] }, nextDueAt: { $lte: deps.clock.now() } },
      { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
    ),
  );
  return changed;
}

/**
 * The sweep's catch-up: up to `limit` payments that are due, oldest due first, skipping any row
 * another transaction holds (FOR UPDATE SKIP LOCKED). So any number of processes sweep at once
 * without waiting on each other, and nothing holds the sweep for anyone: a killed process's
 * transaction (and its row locks) ends with its connection, and the next sweep of any other
 * process takes those rows. `found` is how many rows it locked (fewer than `limit`: none left).
 */
export async function catchUpDuePayments(
  deps: CatchUpPaymentsDeps,
  limit: number,
): Promise<{ found: number; changed: number }> {
  return catchUpLocked(deps, (em) =>
    em.find(
      Payment,
      { nextDueAt: { $lte: deps.clock.now() } },
      { lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE, orderBy: { nextDueAt: 'asc' }, limit },
    ),
  );
}

async function catchUpLocked(
  deps: CatchUpPaymentsDeps,
  lockRows: (em: EntityManager) => Promise<Payment[]>,
): Promise<{ found: number; changed: number }> {
  const next: DuePayment[] = [];
  const result = await deps.em.fork().transactional(async (em) => {
    const rows = await lockRows(em);
    if (rows.length === 0) return { found: 0, changed: 0 };
    const lastSeq = new Map(
      (
        await em.execute<{ payment_id: string; seq: number }[]>(
          'select payment_id, max(seq) as seq from payment_history where payment_id in (?) group by payment_id',
          [rows.map((row) => row.id)],
        )
      ).map((entry) => [entry.payment_id, Number(entry.seq)]),
    );
    const now = deps.clock.now();
    let changed = 0;
    for (const row of rows) {
      const before = toPaymentRecord(row);
      const change = catchUp(before, now);
      if (change.history.length === 0) continue;
      writeLifecycleState(row, change.record);
      insertHistoryRows(em, row.id, lastSeq.get(row.id) ?? 0, change.history);
      const dueAt = change.record.nextDueAt;
      if (dueAt && dueAt.getTime() !== before.nextDueAt?.getTime()) next.push({ paymentId: row.id, dueAt });
      changed++;
    }
    return { found: rows.length, changed };
  });
  try {
    await deps.scheduler.paymentsDue(next);
  } catch (error) {
    // As for one payment: the sweep and every read catch up anyway.
    deps.logger.warn({ err: error, payments: next.length }, 'could not schedule next steps; the sweep will');
  }
  return result;
}
