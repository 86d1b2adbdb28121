import { type HistoryRecord, type ListPaymentsQuery, type PaymentList, toPayment } from '@pis/shared';
import type { z } from 'zod';
import { Payment, PaymentHistory } from '../db/entities/index.ts';
import { catchUpPayment } from './catch-up-payment.ts';
import { toHistoryRecord, toPaymentRecord } from './payment-record.ts';
import { countPayments } from './payment-totals.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';

export type ListPaymentsFilters = z.output<typeof ListPaymentsQuery>;

/** More overdue payments than this in one organization means the worker is down: catch up the oldest. */
const MAX_CATCH_UP_PER_LIST = 500;

/**
 * GET /payments: newest first (created_at, then id, both descending, so equal timestamps still
 * page without overlap), filtered by status and provider, `total` over all pages.
 * Overdue payments of the organization are caught up first, so the status filter and every
 * row reflect now even when the worker lags. `total` comes from the kept counts
 * (payment-totals.ts), not from counting rows: a count(*) grows with the organization's history.
 */
export async function listPayments(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  filters: ListPaymentsFilters,
): Promise<PaymentList> {
  const organization = caller.organizationId;
  await catchUpOverdue(deps, organization);

  const em = deps.em.fork();
  const where = {
    organization,
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.provider ? { provider: filters.provider } : {}),
  };
  const [rows, total] = await Promise.all([
    em.find(Payment, where, {
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      limit: filters.limit,
      offset: filters.offset,
    }),
    countPayments(em.fork(), organization, filters),
  ]);
  const histories = new Map<string, HistoryRecord[]>(rows.map((row) => [row.id, []]));
  if (rows.length > 0) {
    const entries = await em.find(
      PaymentHistory,
      { payment: { $in: rows.map((row) => row.id) } },
      { orderBy: [{ payment: 'asc' }, { seq: 'asc' }] },
    );
    for (const entry of entries) histories.get(entry.payment)?.push(toHistoryRecord(entry));
  }
  return {
    payments: rows.map((row) => toPayment(toPaymentRecord(row), histories.get(row.id) ?? [])),
    total,
    limit: filters.limit,
    offset: filters.offset,
  };
}

/** Catches up the organization's overdue payments (the list and the dashboard's overview read after it). */
export async function catchUpOverdue(deps: PaymentsDeps, organization: string): Promise<void> {
  const overdue = await deps.em
    .fork()
    .find(
      Payment,
      { organization, nextDueAt: { $lte: deps.clock.now() } },
      { fields: ['id'], orderBy: { nextDueAt: 'asc' }, limit: MAX_CATCH_UP_PER_LIST },
    );
  // One at a time: usually none or a few; each takes its row lock briefly.
  for (const { id } of overdue) await catchUpPayment(deps, id);
}
