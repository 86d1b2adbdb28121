import { FLOW_TYPES, ISO_CODES, PAYMENT_MODES, PAYMENT_STATUSES, REASON_CODES } from '@pis/shared';
import { describe, expect, test } from 'vitest';
import { mappedColumns } from '../../src/payments/payment-store.ts';
import { createTestApp } from '../helpers/test-app.ts';

const { orm } = await createTestApp();

const columnsOf = async (table: string) =>
  (
    await orm.em
      .fork()
      .execute<{ column_name: string }[]>(
        `select column_name from information_schema.columns where table_schema = current_schema() and table_name = ?`,
        [table],
      )
  )
    .map((row) => row.column_name)
    .sort();

describe('the payment store maps the schema the migrations made', () => {
  test('every payment column but the version guard, each once', async () => {
    // obie's columns before provider_status, unwritten for one release while the previous build
    // may still run (Migration20261128130000_provider_status); a later release drops them.
    const retired = ['consent_status', 'bank_status'];
    expect([...mappedColumns.payment, 'version', ...retired].sort()).toEqual(await columnsOf('payment'));
  });

  test('every payment_history column but its key, each once', async () => {
    expect([...mappedColumns.history, 'payment_id', 'seq'].sort()).toEqual(
      await columnsOf('payment_history'),
    );
  });
});

describe("the payment's closed sets of values are the database's domains", () => {
  const domains = [
    {
      domain: 'payment_status',
      values: PAYMENT_STATUSES,
      columns: ['payment.status', 'payment_count.status', 'payment_history.status'],
    },
    {
      domain: 'payment_iso_code',
      values: ISO_CODES,
      columns: ['payment.iso_code', 'payment_history.iso_code'],
    },
    {
      domain: 'payment_iso_reason',
      values: REASON_CODES,
      columns: ['payment.iso_reason', 'payment_history.iso_reason'],
    },
    { domain: 'payment_flow_type', values: FLOW_TYPES, columns: ['payment.flow_type'] },
    { domain: 'payment_mode', values: PAYMENT_MODES, columns: ['payment.mode'] },
  ];
  const em = () => orm.em.fork();

  test.each(domains)(
    '$domain: each of its columns, every value the service knows, and nothing else',
    async ({ domain, values, columns }) => {
      const typed = await em().execute<{ column: string }[]>(
        `select table_name || '.' || column_name as column from information_schema.columns
        where table_schema = current_schema() and domain_name = ? order by 1`,
        [domain],
      );
      expect(typed.map((row) => row.column)).toEqual(columns);
      // Every value the shared contract can write is accepted...
      await em().execute(`select v::${domain} from json_array_elements_text(?::json) v`, [
        JSON.stringify(values),
      ]);
      // ...and nothing else: the domain's check names exactly the contract's values...
      const [check] = await em().execute<{ definition: string }[]>(
        `select pg_get_constraintdef(c.oid) as definition from pg_constraint c
          join pg_type t on t.oid = c.contypid where t.typname = ?`,
        [domain],
      );
      const named = [...(check?.definition ?? '').matchAll(/'([^']*)'::text/g)].map((match) => match[1]);
      expect(named.sort()).toEqual([...values].sort());
      // ...and refuses the rest, as the table CHECK constraints before it refused it.
      await expect(em().execute(`select ?::${domain}`, ['SETTLED'])).rejects.toMatchObject({ code: '23514' });
    },
  );
});
