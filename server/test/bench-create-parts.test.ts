import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { removableParts } from '../bench/create-parts.ts';
import { createTestDatabase } from './helpers/test-database.ts';

/**
 * `npm run bench -- --create-parts` takes the payment tables apart one part at a time: it must
 * find the parts a create pays for (the list's and search's indexes, the foreign keys, the kept
 * counts' row trigger), take each away, and put each back exactly as the migrations made it.
 */
const database = await createTestDatabase();
afterAll(() => database.drop());

/** Every index, constraint and trigger of the payment tables, as Postgres would recreate it. */
const schemaOf = async (client: pg.Client) =>
  (
    await client.query<{ part: string }>(
      `select indexrelid::regclass::text || ' ' || pg_get_indexdef(indexrelid) as part
         from pg_index where indrelid in ('payment'::regclass, 'payment_history'::regclass)
       union all
       select conname || ' ' || pg_get_constraintdef(oid) || ' ' || convalidated
         from pg_constraint where conrelid in ('payment'::regclass, 'payment_history'::regclass)
       union all
       select tgname || ' ' || pg_get_triggerdef(oid) || ' ' || tgenabled::text
         from pg_trigger where tgrelid in ('payment'::regclass, 'payment_history'::regclass) and not tgisinternal
       order by 1`,
    )
  ).rows.map((row) => row.part);

test('finds what a create pays for, removes each part and restores it exactly', async () => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const before = await schemaOf(client);
    const parts = await removableParts(client);
    const names = parts.map((part) => part.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'index payment_org_reference_trgm_idx',
        'index payment_org_amount_idx',
        'foreign key payment_organization_id_foreign',
        'foreign key payment_history_payment_id_foreign',
        'trigger payment_insert_counts',
      ]),
    );
    // The primary keys stay (a create looks its row up by them), and statement triggers are not
    // a single create's.
    expect(names.filter((name) => /pkey|_statement$/.test(name))).toEqual([]);
    for (const part of parts) {
      await client.query(part.remove);
      expect(await schemaOf(client)).not.toEqual(before);
      await client.query(part.restore);
    }
    expect(await schemaOf(client)).toEqual(before);
  } finally {
    await client.end();
  }
});
