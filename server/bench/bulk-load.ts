import type pg from 'pg';

/**
 * Runs a bulk load with the secondary indexes of `tables` built after it, not row by row during
 * it (docs/decisions/055: the seed's three search indexes, two of them trigram GIN, made a
 * million-row seed take 189 s). Inside the caller's transaction: each index's own definition is
 * read from the catalogue, dropped, and created again from that definition once `load` is done,
 * so nothing here repeats a migration. Indexes that back a constraint (primary keys, uniques)
 * stay: foreign keys and ON CONFLICT need them.
 */
export async function withIndexesAfterLoad(
  client: pg.Client,
  tables: readonly string[],
  load: () => Promise<void>,
): Promise<void> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `select i.indexrelid::regclass::text as name, pg_get_indexdef(i.indexrelid) as definition
       from pg_index i
      where i.indrelid = any (select oid from pg_class where relname = any($1) and relkind = 'r')
        and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    [tables],
  );
  for (const { name } of rows) await client.query(`drop index ${name}`);
  await load();
  for (const { definition } of rows) await client.query(definition);
}
