import { describe, expect, test } from 'vitest';
import { pageSql, paymentFilter, searchPageSql } from '../../src/payments/payment-store.ts';
import { createTestApp } from '../helpers/test-app.ts';
import { created, paymentBody } from './payment-fixtures.ts';

/**
 * The search reads its indexes (Migration20261125150000_payment_search): at 30,000 payments the
 * plan for a selective term is a bitmap over the primary key, the end-to-end id btree and the
 * trigram GINs, not a walk of the organization's rows.
 */
const { app, factories, orm } = await createTestApp();
const merchant = await factories.createMerchant();
const { paymentId } = await created(app, merchant.headers, paymentBody());
// 30,000 more in SQL, each with its own reference and one of 500 payee names.
const columns = (
  await orm.em.execute<{ column_name: string }[]>(
    `select column_name from information_schema.columns where table_name = 'payment' order by ordinal_position`,
  )
).map((row) => row.column_name);
const copied: Record<string, string> = {
  id: `p.id || '_' || g`,
  reference: `'Order ' || g`,
  end_to_end_id: `'E2E' || g`,
  to_account: `jsonb_build_object('accountName', 'Payee ' || (g % 500), 'sortCode', '123456', 'accountNumber', '12345678')`,
  created_at: `p.created_at - g * interval '1 second'`,
};
await orm.em.execute(
  `insert into payment (${columns.join(', ')})
    select ${columns.map((column) => copied[column] ?? `p.${column}`).join(', ')}
    from payment p, generate_series(1, 30000) g where p.id = ?`,
  [paymentId],
);
await orm.em.execute('analyze payment');

const plan = async (search: string) => {
  const { where, values } = paymentFilter(merchant.organizationId, { search });
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<{ 'QUERY PLAN': string }[]>(`explain ${searchPageSql(where)}`, [
      ...values,
      20,
      0,
    ]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
};

describe('search plans', () => {
  test('a deep page makes JSON of its own 20 payments only, not of the 9,980 its offset skips', async () => {
    const { where, values } = paymentFilter(merchant.organizationId, {});
    const rows = await orm.em
      .fork()
      .transactional((em) =>
        em.execute<{ 'QUERY PLAN': string }[]>(
          `explain (analyze, costs off) ${pageSql(`payment p where ${where}`)}`,
          [...values, 20, 9_980],
        ),
      );
    const text = rows.map((row) => row['QUERY PLAN']).join('\n');
    // The history subquery runs once per returned payment.
    const historyScans = [...text.matchAll(/on payment_history h[^\n]*loops=(\d+)/g)].map((match) =>
      Number(match[1]),
    );
    expect(historyScans).toEqual([20]);
    // And it skips the offset inside the (organization, mode, created_at, id) index.
    expect(text).toContain('payment_org_mode_created_idx');
  });

  test('a reference or payee term, an id: the trigram GINs, the end-to-end btree and the key', async () => {
    const text = await plan('order 12345');
    expect(text).toContain('payment_org_reference_trgm_idx');
    expect(text).toContain('payment_org_payee_trgm_idx');
    expect(text).toContain('payment_org_end_to_end_idx');
    expect(text).toContain('payment_pkey');
  });
});
