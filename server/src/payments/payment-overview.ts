import { PAYMENT_STATUSES, type PaymentStatus, type VolumeDay } from '@pis/shared';
import { catchUpOverdue } from './catch-up-payments.ts';
import { countPaymentsByStatus } from './payment-totals.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';

const VOLUME_DAYS = 30;

const utcMidnight = (date: Date, daysBack = 0) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - daysBack));

/**
 * The overview's numbers, as fast for an organization with a million payments as for one with a
 * thousand (npm run bench -- --scale). Counts by status over all time are the list's kept counts
 * (payment-totals.ts); volume is the kept `payment_day_volume` (per day and currency, written
 * by triggers in each payment's own transaction): money that moved, COMPLETED payments by the
 * UTC day they were created, per currency, over the last 30 days (today included). Neither reads
 * `payment`. Overdue payments are caught up first, as for the list, so no count shows an overdue
 * status and no completion is missing.
 */
export async function paymentOverview(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
): Promise<{ countsByStatus: Record<PaymentStatus, number>; volume: VolumeDay[] }> {
  const { organizationId } = caller;
  await catchUpOverdue(deps, organizationId);
  const since = utcMidnight(deps.clock.now(), VOLUME_DAYS - 1);
  // The kept counts and volumes are test payments'; live ones are counted from their rows (few).
  const live = modeOf(caller) === 'live';
  const [keptCounts, keptVolume] = await Promise.all([
    live ? liveCountsByStatus(deps, organizationId) : countPaymentsByStatus(deps.em.fork(), organizationId),
    deps.em.fork().execute<VolumeDay[]>(
      live
        ? `select to_char((created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, currency,
             sum(amount_value)::text as value, count(*)::int as count
           from payment
           where organization_id = ? and mode = 'live' and status = 'COMPLETED'
             and created_at >= ?::date at time zone 'UTC'
           group by 1, 2 order by 1, 2`
        : `select to_char(day, 'YYYY-MM-DD') as day, currency, sum(value)::text as value, sum(count)::int as count
       from payment_day_volume
       where organization_id = ? and day >= ?::date
       group by 1, 2 having sum(count) <> 0
       order by 1, 2`,
      [organizationId, since.toISOString().slice(0, 10)],
    ),
  ]);
  const countsByStatus = Object.fromEntries(PAYMENT_STATUSES.map((status) => [status, 0])) as Record<
    PaymentStatus,
    number
  >;
  for (const [status, count] of Object.entries(keptCounts)) countsByStatus[status as PaymentStatus] = count;
  const volume = keptVolume.map((row) => ({
    day: row.day,
    currency: row.currency,
    value: row.value,
    count: Number(row.count),
  }));
  return { countsByStatus, volume };
}

/** A live overview's counts by status, from the rows (the kept counts are test payments'). */
async function liveCountsByStatus(deps: PaymentsDeps, organizationId: string) {
  const rows = await deps.em
    .fork()
    .execute<{ status: PaymentStatus; count: number }[]>(
      `select status, count(*)::int as count from payment where organization_id = ? and mode = 'live' group by status`,
      [organizationId],
    );
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)])) as Partial<
    Record<PaymentStatus, number>
  >;
}
