import { Payment } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';
import { applyPaymentEvent, catchUpOnly } from './apply-payment-event.ts';
import type { PaymentsDeps } from './payments-deps.ts';

/**
 * Applies whatever became due for one payment (timeline steps, expiry) under its row lock, and
 * schedules the next step. Idempotent: a duplicate or late call changes nothing. For the worker
 * (`payment.due` jobs, the sweep) and the list. A payment that no longer exists is not an error.
 */
export async function catchUpPayment(deps: PaymentsDeps, paymentId: string): Promise<void> {
  const row = await deps.em.fork().findOne(Payment, { id: paymentId }, { fields: ['id', 'nextDueAt'] });
  // Nothing due (another worker or a reader got there first): no lock, no transaction.
  if (!row?.nextDueAt || row.nextDueAt.getTime() > deps.clock.now().getTime()) return;
  await applyPaymentEvent(deps, { paymentId }, catchUpOnly, { whileClaimed: 'hold' });
}

/** Unfinished payments whose `next_due_at` is at or before `now`, oldest due first. */
export async function findDuePaymentIds(em: EntityManager, now: Date, limit: number): Promise<string[]> {
  const rows = await em
    .fork()
    .find(Payment, { nextDueAt: { $lte: now } }, { fields: ['id'], orderBy: { nextDueAt: 'asc' }, limit });
  return rows.map((row) => row.id);
}
