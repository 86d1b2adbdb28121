import { PAYMENT_STATUSES, type PaymentStatus, TERMINAL_STATUSES, type VolumeDay } from '@pis/shared';
import type { EntityManager } from '../db/orm.ts';
import { catchUpOverdue } from './list-payments.ts';
import { countPaymentsByStatus } from './payment-totals.ts';
import type { PaymentsCaller, PaymentsDeps } from './payments-deps.ts';

const VOLUME_DAYS = 30;
/**
 * A payment lives at most a day (then it expires) and its Mock timeline at most an hour after
 * approval, so every payment created two UTC days before today has finished: those days are
 * summarized once and never read from `payment` again.
 */
const FINAL_AFTER_DAYS = 2;

const utcMidnight = (date: Date, daysBack = 0) =>
  new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() - daysBack));

/**
 * The overview's numbers, fast for an organization with a million payments. Counts by status
 * over all time are the list's kept counts (payment-totals.ts). Volume: finished days come from
 * `payment_day_summary` (one row per day, status and currency, written once by
 * `summarizeFinishedDays`), and only the last two or three days are read from `payment` itself
 * (through the (organization, status, created_at) index). Volume is money that moved: COMPLETED payments
 * by the UTC day they were created, per currency, over the last 30 days (today included).
 * Overdue payments are caught up first, as for the list, so no count shows an overdue status.
 */
export async function paymentOverview(
  deps: PaymentsDeps,
  caller: PaymentsCaller,
): Promise<{ countsByStatus: Record<PaymentStatus, number>; volume: VolumeDay[] }> {
  const { organizationId } = caller;
  await catchUpOverdue(deps, organizationId);
  const now = deps.clock.now();
  const liveFrom = await summarizeFinishedDays(deps.em, organizationId, now);
  const since = utcMidnight(now, VOLUME_DAYS - 1);
  const fork = deps.em.fork();
  const [keptCounts, summaryVolume, liveVolume] = await Promise.all([
    countPaymentsByStatus(deps.em.fork(), organizationId),
    fork.execute<VolumeDay[]>(
      `select to_char(day, 'YYYY-MM-DD') as day, currency, sum(value)::text as value, sum(count)::int as count
       from payment_day_summary
       where organization_id = ? and status = 'COMPLETED' and day >= ?::date
       group by 1, 2`,
      [organizationId, since.toISOString().slice(0, 10)],
    ),
    fork.execute<VolumeDay[]>(
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, currency,
         sum(amount_value)::text as value, count(*)::int as count
       from payment
       where organization_id = ? and status = 'COMPLETED' and created_at >= ?
       group by 1, 2`,
      [organizationId, new Date(Math.max(since.getTime(), liveFrom.getTime()))],
    ),
  ]);
  const countsByStatus = Object.fromEntries(PAYMENT_STATUSES.map((status) => [status, 0])) as Record<
    PaymentStatus,
    number
  >;
  for (const [status, count] of Object.entries(keptCounts)) countsByStatus[status as PaymentStatus] = count;
  // The two sources cover different days (before and from `liveFrom`, a UTC midnight).
  const volume = [...summaryVolume, ...liveVolume]
    .map((row) => ({ day: row.day, currency: row.currency, value: row.value, count: Number(row.count) }))
    .sort((a, b) => a.day.localeCompare(b.day) || a.currency.localeCompare(b.currency));
  return { countsByStatus, volume };
}

const TERMINAL_LIST = TERMINAL_STATUSES.map((status) => `'${status}'`).join(', ');

/**
 * Adds the organization's finished days to `payment_day_summary` (under a lock on its progress
 * row, so two overviews never summarize a day twice) and returns the UTC midnight from which
 * payments are still counted live. A day with an unfinished payment (the worker was down for
 * days) is not summarized until it has finished. The first call for an organization with a long
 * history reads it all once; every later call reads at most a day.
 */
export async function summarizeFinishedDays(
  em: EntityManager,
  organizationId: string,
  now: Date,
): Promise<Date> {
  const target = utcMidnight(now, FINAL_AFTER_DAYS);
  return em.fork().transactional(async (tx) => {
    await tx.execute(
      `insert into payment_summary_progress (organization_id, summarized_before)
       values (?, to_timestamp(0)) on conflict (organization_id) do nothing`,
      [organizationId],
    );
    const [progress] = await tx.execute<{ ms: number }[]>(
      `select extract(epoch from summarized_before) * 1000 as ms from payment_summary_progress
       where organization_id = ? for update`,
      [organizationId],
    );
    const from = new Date(Number(progress?.ms ?? 0));
    if (from.getTime() >= target.getTime()) return from;
    const [open] = await tx.execute<{ ms: number | null }[]>(
      `select extract(epoch from min(created_at)) * 1000 as ms from payment
       where organization_id = ? and created_at >= ? and created_at < ? and status not in (${TERMINAL_LIST})`,
      [organizationId, from, target],
    );
    const until = open?.ms == null ? target : utcMidnight(new Date(Number(open.ms)));
    if (until.getTime() <= from.getTime()) return from;
    await tx.execute(
      `insert into payment_day_summary (organization_id, day, status, currency, count, value)
       select organization_id, (created_at at time zone 'UTC')::date, status, currency, count(*), sum(amount_value)
       from payment where organization_id = ? and created_at >= ? and created_at < ?
       group by 1, 2, 3, 4`,
      [organizationId, from, until],
    );
    await tx.execute('update payment_summary_progress set summarized_before = ? where organization_id = ?', [
      until,
      organizationId,
    ]);
    return until;
  });
}
