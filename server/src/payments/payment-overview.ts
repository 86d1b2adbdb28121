import { PAYMENT_STATUSES, type PaymentStatus, type VolumeDay } from '@pis/shared';
import { catchUpOverdue } from './list-payments.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';

const VOLUME_DAYS = 30;

/**
 * The overview's numbers, from two aggregate queries that each read one index only (no table
 * rows), so an organization with a million payments still answers in well under a second:
 * counts by status from `payment_org_status_created_idx`, the volume from the covering
 * `payment_org_volume_idx` (organization, status, created_at) include (amount_value, currency).
 * Volume is money that moved: COMPLETED payments, by the UTC day they were created, per currency.
 * Overdue payments are caught up first, as for the list, so no count shows an overdue status.
 */
export async function paymentOverview(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
): Promise<{ countsByStatus: Record<PaymentStatus, number>; volume: VolumeDay[] }> {
  const { organizationId } = caller;
  await catchUpOverdue(deps, organizationId);
  const now = deps.clock.now();
  const fork = deps.em.fork();
  const since = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (VOLUME_DAYS - 1)),
  );
  const [counts, volume] = await Promise.all([
    fork.execute<{ status: PaymentStatus; count: number }[]>(
      'select status, count(*)::int as count from payment where organization_id = ? group by status',
      [organizationId],
    ),
    fork.execute<VolumeDay[]>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, currency,
         sum(amount_value)::text as value, count(*)::int as count
       from payment
       where organization_id = ? and status = 'COMPLETED' and created_at >= ?
       group by 1, 2 order by 1, 2`,
      [organizationId, since],
    ),
  ]);
  const countsByStatus = Object.fromEntries(PAYMENT_STATUSES.map((status) => [status, 0])) as Record<
    PaymentStatus,
    number
  >;
  for (const row of counts) countsByStatus[row.status] = Number(row.count);
  return {
    countsByStatus,
    volume: volume.map((row) => ({
      day: row.day,
      currency: row.currency,
      value: row.value,
      count: Number(row.count),
    })),
  };
}
