import { catchUp, type HistoryRecord, type PaymentRecord } from '@pis/shared';
import type { Clock } from '../clock.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Logger } from '../logger.ts';
import { countTransitions } from '../observability/metrics.ts';
import { heldUntil } from './apply-payment-event.ts';
import {
  PAYMENT_ROW_JSON,
  type PaymentJson,
  paymentRecordFromJson,
  writeLifecycleSteps,
} from './payment-record.ts';
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
 * Five statements whatever the batch's size (lock, read, last entries and claims, update,
 * history), in raw SQL: with entities, hydrating, diffing and flushing thousands of payments
 * took most of a 10,000-step burst (issue 9; docs/decisions/hot-path-performance.md).
 */
export async function catchUpPayments(
  deps: CatchUpPaymentsDeps,
  paymentIds: readonly string[],
): Promise<number> {
  if (paymentIds.length === 0) return 0;
  const { changed } = await catchUpLocked(deps, (em) =>
    // Postgres re-checks `next_due_at` on rows it waited for, so a step applied by whoever held
    // the lock is not applied again. The ids go as one JSON parameter: the ORM would inline
    // each id of `in (?)` into the text, which costs the event loop dearly for thousands.
    em.execute<LockedRow[]>(
      `select p.id from payment p
        where p.id in (select json_array_elements_text(?::json))
          and p.next_due_at <= ?::timestamptz
        order by p.id for update`,
      [JSON.stringify([...new Set(paymentIds)]), deps.clock.now().toISOString()],
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
    em.execute<LockedRow[]>(
      `select p.id from payment p
        where p.next_due_at <= ?::timestamptz order by p.next_due_at limit ? for update skip locked`,
      [deps.clock.now().toISOString(), limit],
    ),
  );
}

/** A locked payment row's id (its data is read once the lock is held, see catchUpLocked). */
type LockedRow = { id: string };

async function catchUpLocked(
  deps: CatchUpPaymentsDeps,
  lockRows: (em: EntityManager) => Promise<LockedRow[]>,
): Promise<{ found: number; changed: number }> {
  const next: DuePayment[] = [];
  const result = await deps.em.fork().transactional(async (em) => {
    const locked = await lockRows(em);
    // The instant the steps are applied at: read once the rows are ours, before reading what they
    // hold (a statement of its own: building and parsing thousands of rows takes a while, and
    // four batches share this event loop).
    const now = deps.clock.now();
    if (locked.length === 0) return { found: 0, changed: 0 };
    const rows = (
      await em.execute<{ payment: Omit<PaymentJson, 'history'> }[]>(
        `select ${PAYMENT_ROW_JSON} as payment from payment p
          where p.id in (select json_array_elements_text(?::json)) order by p.id`,
        [JSON.stringify(locked.map((row) => row.id))],
      )
    ).map((row) => paymentRecordFromJson(row.payment));
    // Read after the lock (a statement of its own, so it sees what the lock holder committed):
    // each payment's last history entry, and its provider claim's time. A payment whose
    // provider call is claimed and unanswered waits at the claim's time (see
    // applyPaymentEvent): its bank is being told about a decision made then.
    const around = new Map(
      (
        await em.execute<{ id: string; last_seq: number | null; claimed_at: string | null }[]>(
          `select p.id,
              (select max(h.seq) from payment_history h where h.payment_id = p.id) as last_seq,
              (select to_json(c.claimed_at) from provider_claim c where c.payment_id = p.id) as claimed_at
            from json_array_elements_text(?::json) as p(id)`,
          [JSON.stringify(rows.map((row) => row.id))],
        )
      ).map((entry) => [entry.id, entry]),
    );
    const steps: { record: PaymentRecord; lastSeq: number; history: HistoryRecord[] }[] = [];
    for (const before of rows) {
      const { last_seq: lastSeq, claimed_at: claimedAt } = around.get(before.id) ?? {};
      const change = catchUp(before, heldUntil(claimedAt ? new Date(claimedAt) : undefined, now));
      if (change.history.length === 0) continue;
      steps.push({ record: change.record, lastSeq: Number(lastSeq ?? 0), history: change.history });
      const dueAt = change.record.nextDueAt;
      if (dueAt && dueAt.getTime() !== before.nextDueAt?.getTime())
        next.push({ paymentId: before.id, dueAt });
    }
    await writeLifecycleSteps(em, steps);
    // Counted as written (a commit that then fails, rare, over-counts by its batch).
    for (const step of steps) countTransitions(step.record, step.history);
    return { found: rows.length, changed: steps.length };
  });
  try {
    await deps.scheduler.paymentsDue(next);
  } catch (error) {
    // As for one payment: the sweep and every read catch up anyway.
    deps.logger.warn({ err: error, payments: next.length }, 'could not schedule next steps; the sweep will');
  }
  return result;
}
