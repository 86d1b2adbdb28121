import { PaymentCount } from '../db/entities/index.ts';
import type { EntityManager } from '../db/orm.ts';

export interface PaymentCountFilters {
  status?: string | undefined;
  provider?: string | undefined;
}

/**
 * How many payments an organization has, optionally of one status and/or provider: exact (the
 * counts are kept by a trigger in each writing transaction) and a few dozen rows to read at most,
 * whether the organization has made a thousand payments or ten million.
 */
export async function countPayments(
  em: EntityManager,
  organizationId: string,
  filters: PaymentCountFilters,
): Promise<number> {
  const rows = await em.find(
    PaymentCount,
    {
      organizationId,
      ...(filters.status ? { status: filters.status as PaymentCount['status'] } : {}),
      ...(filters.provider ? { provider: filters.provider } : {}),
    },
    { fields: ['count'] },
  );
  return rows.reduce((sum, row) => sum + row.count, 0);
}

/** Counts by status for an organization (the dashboard's overview), from the same counters. */
export async function countPaymentsByStatus(
  em: EntityManager,
  organizationId: string,
): Promise<Partial<Record<PaymentCount['status'], number>>> {
  const totals: Partial<Record<PaymentCount['status'], number>> = {};
  for (const row of await em.find(PaymentCount, { organizationId }, { fields: ['status', 'count'] }))
    totals[row.status] = (totals[row.status] ?? 0) + row.count;
  return totals;
}
