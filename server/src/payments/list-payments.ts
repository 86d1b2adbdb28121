import { type ListPaymentsQuery, type PaymentList, toPayment } from '@pis/shared';
import type { z } from 'zod';
import { catchUpOverdue } from './catch-up-payments.ts';
import { countedByKeptTotals, countFilteredPayments, listPaymentPage } from './payment-store.ts';
import { countPayments } from './payment-totals.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';

export type ListPaymentsFilters = z.output<typeof ListPaymentsQuery>;

/**
 * GET /payments: newest first (created_at, then id, both descending, so equal timestamps still
 * page without overlap), filtered by status, provider, currency, creation time and `search`,
 * `total` over all pages.
 * Overdue payments of the organization are caught up first, so the status filter and every
 * row reflect now even when the worker lags. `total` comes from the kept counts
 * (payment-totals.ts), not from counting rows: a count(*) grows with the organization's history.
 * The kept counts know only status and provider; any other filter is counted from its index.
 */
export async function listPayments(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  filters: ListPaymentsFilters,
): Promise<PaymentList> {
  const organization = caller.organizationId;
  await catchUpOverdue(deps, organization);
  const em = deps.em.fork();
  const inMode = { ...filters, mode: modeOf(caller) };
  const [page, total] = await Promise.all([
    listPaymentPage(em, organization, inMode),
    countedByKeptTotals(inMode)
      ? countPayments(em.fork(), organization, inMode)
      : countFilteredPayments(em.fork(), organization, inMode),
  ]);
  return {
    payments: page.map(({ record, history }) => toPayment(record, history)),
    total,
    limit: filters.limit,
    offset: filters.offset,
  };
}
