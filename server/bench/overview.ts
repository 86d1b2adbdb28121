import { migrate, openOrm } from '../src/db/orm.ts';
import { silentLogger } from '../src/logger.ts';
import { createOrganization } from '../src/organizations/organization-admin.ts';
import { paymentOverview } from '../src/payments/payment-overview.ts';
import { noopPaymentScheduler } from '../src/payments/payment-scheduler.ts';
import { defaultProviderRegistry } from '../src/providers/default-providers.ts';
import { startThrowawayCluster } from './throwaway-cluster.ts';

/**
 * `npm run -w @pis/server bench:overview`: the dashboard overview's queries for an organization
 * with 1,000,000 payments (beside another with 200,000), on a throwaway embedded Postgres.
 * Prints the first call (which summarizes the finished days once), the median of 5 later calls,
 * and the plans of the two counts.
 */
const PAYMENTS = Number(process.env.OVERVIEW_PAYMENTS ?? 1_000_000);
const now = new Date();

const throwaway = await startThrowawayCluster('overview');
const url = throwaway.cluster.url('postgres');
const orm = await openOrm(url, { poolMax: 4 });
try {
  await migrate(orm, url);
  const em = orm.em.fork();
  const clock = { now: () => now };
  const { organizationId } = await createOrganization(em, 'Big Merchant', clock);
  const { organizationId: otherId } = await createOrganization(em, 'Other Merchant', clock);
  const fill = async (org: string, count: number) => {
    const started = performance.now();
    // Spread over 60 days; 70% COMPLETED, the rest over the other statuses; GBP and EUR.
    await em.execute(
      `insert into payment (id, organization_id, status, iso_code, provider, amount_value, currency, to_account,
         reference, end_to_end_id, flow_type, created_at, updated_at, expires_at, version)
       select 'pay_' || ? || '_' || i, ?,
         (case when i % 10 < 7 then 'COMPLETED' when i % 10 = 7 then 'FAILED' when i % 10 = 8 then 'EXPIRED'
          else 'CANCELLED' end),
         (case when i % 10 < 7 then 'ACSC' when i % 10 = 9 then 'CANC' else 'RJCT' end),
         'mock', (1 + i % 5000) / 100.0, (case when i % 3 = 0 then 'EUR' else 'GBP' end),
         '{"accountName":"x"}'::jsonb, 'bench', 'E2E' || i, 'API_ONLY',
         ?::timestamptz - (i % (60 * 24 * 60)) * interval '1 minute', ?::timestamptz, ?::timestamptz, 1
       from generate_series(1, ?) as i`,
      [org, org, now, now, now, count],
    );
    process.stdout.write(
      `inserted ${count} payments in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  };
  await fill(organizationId, PAYMENTS);
  await fill(otherId, Math.round(PAYMENTS / 5));
  await em.execute('vacuum analyze payment');

  const deps = {
    em: orm.em,
    clock,
    config: {
      publicBaseUrl: 'http://localhost',
      linkSigningSecret: 'x'.repeat(32),
      hostedPagesEnabled: true,
    },
    providers: defaultProviderRegistry({
      publicBaseUrl: 'http://localhost',
      linkSigningSecret: 'x'.repeat(32),
    }),
    scheduler: noopPaymentScheduler,
    logger: silentLogger(),
  };
  const caller = { organizationId, approvedProviders: ['mock'] };
  const times: number[] = [];
  let result: Awaited<ReturnType<typeof paymentOverview>> | undefined;
  for (let run = 0; run < 6; run++) {
    const started = performance.now();
    result = await paymentOverview(deps, caller);
    const ms = performance.now() - started;
    // The first call summarizes the whole history once (payment_day_summary).
    if (run === 0)
      process.stdout.write(`first overview (summarizes ${PAYMENTS} payments once): ${ms.toFixed(0)} ms\n`);
    else times.push(ms);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(
    `overview afterwards: median ${times[2]?.toFixed(0)} ms (min ${times[0]?.toFixed(0)}, max ${times[4]?.toFixed(0)})\n`,
  );
  process.stdout.write(
    `counts: ${JSON.stringify(result?.countsByStatus)}; volume rows: ${result?.volume.length}\n`,
  );
  const liveFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 2));
  for (const [name, sql, values] of [
    [
      'live counts (last days)',
      'select status, count(*) from payment where organization_id = ? and created_at >= ? group by status',
      [organizationId, liveFrom],
    ],
    [
      'summary counts',
      'select status, sum(count) from payment_day_summary where organization_id = ? group by status',
      [organizationId],
    ],
  ] as const) {
    const plan = await em.execute<{ 'QUERY PLAN': string }[]>(`explain (analyze, buffers) ${sql}`, [
      ...values,
    ]);
    process.stdout.write(`\n${name}:\n${plan.map((row) => `  ${row['QUERY PLAN']}`).join('\n')}\n`);
  }
} finally {
  await orm.close();
  await throwaway.stop();
}
