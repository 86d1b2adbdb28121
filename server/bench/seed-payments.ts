import pg from 'pg';
import { withIndexesAfterLoad } from './bulk-load.ts';

/**
 * `payments` payments (with their history, counts and daily figures) of an organization, in one
 * bulk transaction through the normal triggers: a session without `pis.counts = row` keeps the
 * counts once per statement (Migration20261128100000_bulk_counts_per_statement), so a million
 * rows cost the counts one set-based upsert each. The secondary indexes are built after the rows
 * (bulk-load.ts: needs the tables' owner; bench/cluster.ts seeds its restore measure with it).
 */
export async function seedPayments(
  databaseUrl: string,
  organizationId: string,
  payments: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('begin');
    await withIndexesAfterLoad(client, ['payment', 'payment_history'], async () => {
      await client.query(SEED_PAYMENTS, [organizationId, payments]);
      await client.query(SEED_HISTORY, [organizationId]);
    });
    await client.query('commit');
    await client.query('vacuum analyze payment');
    await client.query('vacuum analyze payment_history');
  } finally {
    await client.end();
  }
}

/** Finished payments, newest now, one a few seconds apart going back; 1 in 10 failed, 1 in 20 cancelled. */
export const SEED_PAYMENTS = `
  insert into payment (id, organization_id, status, iso_code, iso_reason, provider, amount_value, currency,
    to_account, reference, end_to_end_id, flow_type, return_url, created_at, updated_at, expires_at,
    completed_at, error_code, error_message, version)
  select 'pay_seed' || $1 || '_' || n, $1,
    case when n % 10 = 3 then 'FAILED' when n % 20 = 7 then 'CANCELLED' else 'COMPLETED' end,
    case when n % 10 = 3 then 'RJCT' when n % 20 = 7 then 'CANC' else 'ACSC' end,
    case when n % 10 = 3 or n % 20 = 7 then 'CUST' end,
    'mock', (n % 9000 + 100) / 100.0, 'GBP',
    jsonb_build_object('accountName', 'Payee ' || (n % 5000), 'sortCode', '123456', 'accountNumber', '12345678'),
    'Order ' || n, 'E2E' || n, 'API_ONLY', 'https://shop.example/return',
    now() - n * interval '3 seconds', now() - n * interval '3 seconds' + interval '1 minute',
    now() - n * interval '3 seconds' + interval '24 hours',
    case when n % 10 <> 3 and n % 20 <> 7 then now() - n * interval '3 seconds' + interval '1 minute' end,
    case when n % 10 = 3 then 'CUST' end, case when n % 10 = 3 then 'Rejected by the customer' end, 1
  from generate_series(1, $2::int) as n`;

const SEED_HISTORY = `
  insert into payment_history (payment_id, seq, status, iso_code, iso_reason, provider, details, timestamp)
  select p.id, h.seq, h.status, h.iso_code, h.iso_reason, 'mock', null, p.created_at + (h.seq - 1) * interval '10 seconds'
  from payment p
  cross join lateral (values
    (1, 'PENDING', 'RCVD', null),
    (2, 'AUTHORIZING', 'PDNG', null),
    (3, p.status, p.iso_code, p.iso_reason)
  ) as h(seq, status, iso_code, iso_reason)
  where p.organization_id = $1`;
