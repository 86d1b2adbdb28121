import type { EntityManager } from './orm.ts';

/**
 * One statement as a named prepared statement on the ORM's own connection pool (same
 * connections and type parsers as the ORM; timestamps come back as Postgres text).
 *
 * Why: MikroORM and kysely send every statement unnamed, so Postgres parses and plans it on each
 * call. For the per-request statements (key lookup, payment read, payment insert) planning was
 * most of Postgres's CPU, on a machine where Postgres and the service share the cores: prepared,
 * the key lookup went from ~200 to ~60 us of Postgres CPU, the payment read from ~210 to ~70.
 * Postgres keeps the statement per connection; `pg` parses it once per pooled connection.
 *
 * `sql` uses `?` placeholders like `em.execute` (so the same text also runs inside a
 * transaction through the ORM); it must contain no other `?`. Only for a single statement
 * outside a transaction (each call may take another pooled connection). Keep the text fixed per
 * `name` and select explicit columns, so a migration that adds a column does not change a
 * prepared statement's result type. Errors are the ORM's exception types.
 */
export async function preparedQuery<Row>(
  em: EntityManager,
  statement: { name: string; sql: string },
  values: unknown[],
): Promise<Row[]> {
  const { name } = statement;
  if (em.isInTransaction()) throw new Error(`prepared statement ${name} cannot join a transaction`);
  let text = numbered.get(name);
  if (text === undefined) {
    let index = 0;
    text = statement.sql.replace(/\?/g, () => `$${++index}`);
    numbered.set(name, text);
  }
  const pool = await em.getConnection().getNativeClient();
  try {
    return (await pool.query({ name, text, values })).rows as Row[];
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

/** `?` -> `$1, $2, ...`, once per statement name. */
const numbered = new Map<string, string>();
