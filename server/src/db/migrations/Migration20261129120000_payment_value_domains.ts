import { Migration } from '@mikro-orm/migrations';
import { FINISHED } from './Migration20261125174000_payment_day_outcome.ts';
import { COUNT_FINISHED_INSERTED, COUNT_INSERTED } from './Migration20261127150000_insert_counts_per_row.ts';
import { ROW_PATH } from './Migration20261128100000_bulk_counts_per_statement.ts';

/**
 * The payment's closed sets of values as domains, not table CHECK constraints, and one insert
 * row trigger instead of two (issue 32 item 2: a create's Postgres time).
 *
 * Postgres's own profile of a create's statement (perf with DWARF call graphs, 10 clients) spent
 * a quarter of the statement re-reading text: every execution of an INSERT parses each CHECK
 * constraint of the table from its stored node string (`ExecConstraints` -> `stringToNode`; an
 * array of nine statuses is a few hundred tokens) and plans it anew (18% of the samples), and
 * each row trigger's WHEN condition likewise (`TriggerEnabled`, 8%). A domain's constraints are
 * read once per connection into its type cache, and checked from there.
 *
 * - The same sets, the same checks: `payment_status`, `payment_iso_code`, `payment_iso_reason`,
 *   `payment_flow_type` and `payment_mode` over text, on `payment` and `payment_history` (and
 *   the status of `payment_count`, which the insert trigger's upsert checked the same way). The
 *   column's type changes to a domain over its own type, so no row or index is rewritten. Each
 *   domain gets its constraint after the columns moved to it, NOT VALID: the table constraints
 *   dropped in the same transaction had already checked every existing row, and validating would
 *   only scan the tables under the migration's exclusive lock. New and changed values are checked.
 * - The service's insert row triggers (`payment_count_insert` for a test payment,
 *   `payment_finished_insert` for one inserted finished) become `payment_insert_counts`, with
 *   the short condition they shared (the session's `pis.counts` path,
 *   Migration20261128100000_bulk_counts_per_statement); which counts apply is decided in it.
 *
 * The values are written out, not imported from the shared contract: a migration is history and
 * must not change when the contract does. `payment-store.test.ts` fails when the two drift apart.
 */
const DOMAINS = [
  {
    name: 'payment_status',
    values: [
      'PENDING',
      'AUTHORIZING',
      'AUTHORIZED',
      'SUBMITTED',
      'ACCEPTED',
      'COMPLETED',
      'FAILED',
      'CANCELLED',
      'EXPIRED',
    ],
    columns: { payment: 'status', payment_history: 'status', payment_count: 'status' },
  },
  {
    name: 'payment_iso_code',
    values: ['RCVD', 'PDNG', 'ACTC', 'ACCP', 'ACSP', 'ACSC', 'RJCT', 'CANC'],
    columns: { payment: 'iso_code', payment_history: 'iso_code' },
  },
  {
    name: 'payment_iso_reason',
    values: ['AM04', 'AC04', 'CUST', 'NOAS', 'NARR'],
    columns: { payment: 'iso_reason', payment_history: 'iso_reason' },
  },
  {
    name: 'payment_flow_type',
    values: ['API_ONLY', 'HOSTED_PAGES', 'EMBEDDED_HOSTED_PAGES'],
    columns: { payment: 'flow_type' },
  },
  { name: 'payment_mode', values: ['test', 'live'], columns: { payment: 'mode' } },
] as const;

const checkOf = (subject: string, values: readonly string[]) =>
  `check (${subject} in (${values.map((value) => `'${value}'`).join(', ')}))`;

export class Migration20261129120000_payment_value_domains extends Migration {
  override name = 'Migration20261129120000_payment_value_domains';

  override up(): void | Promise<void> {
    // The old triggers' WHEN conditions name `mode` and `status`: a column a trigger depends on
    // cannot change type.
    this.addSql(`drop trigger "payment_count_insert" on "payment";`);
    this.addSql(`drop trigger "payment_finished_insert" on "payment";`);
    for (const domain of DOMAINS) {
      this.addSql(`create domain "${domain.name}" as text;`);
      for (const [table, column] of Object.entries(domain.columns)) {
        this.addSql(
          `alter table "${table}" drop constraint "${table}_${column}_check", alter column "${column}" type "${domain.name}";`,
        );
      }
      this.addSql(
        `alter domain "${domain.name}" add constraint "${domain.name}_check" ${checkOf('value', domain.values)} not valid;`,
      );
    }
    this.addSql(`
      create function payment_insert_counts() returns trigger language plpgsql as $$
      begin
        if new.mode = 'test' then ${COUNT_INSERTED}
        end if;
        if new.status in ${FINISHED} then ${COUNT_FINISHED_INSERTED}
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger "payment_insert_counts" after insert on "payment" for each row when (${ROW_PATH}) execute function payment_insert_counts();`,
    );
    // A column's type change drops its planner statistics: gathered again for just those columns
    // (the lists' and filters' plans lean on them), not left to the next analyze after growth.
    const columnsOf = (table: string) =>
      DOMAINS.flatMap((domain) => Object.entries(domain.columns))
        .filter(([owner]) => owner === table)
        .map(([, column]) => `"${column}"`);
    for (const table of ['payment', 'payment_history', 'payment_count']) {
      this.addSql(`analyze "${table}" (${columnsOf(table).join(', ')});`);
    }
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "payment_insert_counts" on "payment";`);
    this.addSql(`drop function payment_insert_counts();`);
    for (const domain of DOMAINS) {
      for (const [table, column] of Object.entries(domain.columns)) {
        this.addSql(
          `alter table "${table}" alter column "${column}" type text, add constraint "${table}_${column}_check" ${checkOf(`"${column}"`, domain.values)};`,
        );
      }
      this.addSql(`drop domain "${domain.name}";`);
    }
    this.addSql(
      `create trigger "payment_count_insert" after insert on "payment" for each row when (new.mode = 'test' and ${ROW_PATH}) execute function payment_count_insert_row();`,
    );
    this.addSql(
      `create trigger "payment_finished_insert" after insert on "payment" for each row when (new.status in ${FINISHED} and ${ROW_PATH}) execute function payment_finished_insert_row();`,
    );
  }
}
