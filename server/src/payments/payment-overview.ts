import { type OverviewOutcomes, PAYMENT_STATUSES, type PaymentStatus, type VolumeDay } from '@pis/shared';
import { catchUpOverdue } from './catch-up-payments.ts';
import { liveCountsByStatus, liveVolumeByDay } from './payment-store.ts';
import { countPaymentsByStatus } from './payment-totals.ts';
import { modeOf, type PaymentsCaller, type PaymentsDeps } from './payments-deps.ts';

const TOP = 5;

const utcMidnight = (date: Date, daysBack = 0) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - daysBack));

/**
 * The overview's numbers, as fast for an organization with a million payments as for one with a
 * thousand (npm run bench -- --scale). Counts by status over all time are the list's kept counts
 * (payment-totals.ts); volume is the kept `payment_day_volume` (per day and currency, written
 * by triggers in each payment's own transaction): money that moved, COMPLETED payments by the
 * UTC day they were created, per currency, over the last `days` days (today included), and how
 * the period's payments ended (kept in `payment_day_outcome`: success rate, median time to
 * complete, top banks and failure reasons). None of them reads
 * `payment`. Overdue payments are caught up first, as for the list, so no count shows an overdue
 * status and no completion is missing.
 */
export async function paymentOverview(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
  days = 30,
): Promise<{
  countsByStatus: Record<PaymentStatus, number>;
  days: number;
  volume: VolumeDay[];
  outcomes: OverviewOutcomes;
}> {
  const { organizationId } = caller;
  await catchUpOverdue(deps, organizationId);
  const since = utcMidnight(deps.clock.now(), days - 1);
  // The kept counts and volumes are test payments'; live ones are counted from their rows (few).
  const live = modeOf(caller) === 'live';
  const [keptCounts, keptVolume, keptOutcomes] = await Promise.all([
    live ? liveCounts(deps, organizationId) : countPaymentsByStatus(deps.em.fork(), organizationId),
    live
      ? liveVolumeByDay(deps.em.fork(), organizationId, since.toISOString().slice(0, 10))
      : deps.em.fork().execute<VolumeDay[]>(
          `select to_char(day, 'YYYY-MM-DD') as day, currency, sum(value)::text as value, sum(count)::int as count
       from payment_day_volume
       where organization_id = ? and day >= ?::date
       group by 1, 2 having sum(count) <> 0
       order by 1, 2`,
          [organizationId, since.toISOString().slice(0, 10)],
        ),
    // The kept outcomes (Migration20261125174000_payment_day_outcome): a few rows per day.
    deps.em.fork().execute<{ kind: string; key: string; count: string | number }[]>(
      `select kind, key, sum(count)::bigint as count
       from payment_day_outcome
       where organization_id = ? and day >= ?::date
       group by 1, 2 having sum(count) <> 0`,
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
  return { countsByStatus, days, volume, outcomes: outcomesOf(keptOutcomes) };
}

/** The kept rows (kind, key, count) as the overview's figures. */
export function outcomesOf(
  rows: readonly { kind: string; key: string; count: string | number }[],
): OverviewOutcomes {
  const of = (kind: string) =>
    rows
      .filter((row) => row.kind === kind)
      .map((row) => ({ key: row.key, count: Number(row.count) }))
      .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  const statuses = of('status');
  const finished = statuses.reduce((sum, row) => sum + row.count, 0);
  const completed = statuses.find((row) => row.key === 'COMPLETED')?.count ?? 0;
  return {
    finished,
    completed,
    successRate: finished === 0 ? null : completed / finished,
    medianSecondsToComplete: medianOfBuckets(of('seconds')),
    topBanks: of('bank')
      .slice(0, TOP)
      .map((row) => ({ bankId: row.key, completed: row.count })),
    topFailureReasons: of('reason')
      .slice(0, TOP)
      .map((row) => ({ code: row.key, count: row.count })),
  };
}

/**
 * The median from the buckets `payment_seconds_bucket` keeps (bucket b > 0 holds [1.1^(b-1),
 * 1.1^b) seconds, bucket 0 under a second): the middle of the bucket holding the middle payment.
 */
function medianOfBuckets(buckets: readonly { key: string; count: number }[]): number | null {
  const ordered = buckets
    .map((row) => ({ bucket: Number(row.key), count: row.count }))
    .sort((a, b) => a.bucket - b.bucket);
  const total = ordered.reduce((sum, row) => sum + row.count, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const { bucket, count } of ordered) {
    seen += count;
    if (seen * 2 >= total) return bucket === 0 ? 0.5 : Math.round(1.1 ** (bucket - 0.5) * 10) / 10;
  }
  return null;
}

/** A live overview's counts by status, from the rows (the kept counts are test payments'). */
async function liveCounts(deps: PaymentsDeps, organizationId: string) {
  const rows = await liveCountsByStatus(deps.em.fork(), organizationId);
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.count)])) as Partial<
    Record<PaymentStatus, number>
  >;
}
