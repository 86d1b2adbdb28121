import { Migration } from '@mikro-orm/migrations';
import { FINISHED } from './Migration20261125174000_payment_day_outcome.ts';

/**
 * Bulk inserts keep the counts once per statement again (issue 32 item 5), while the service's
 * single create keeps its cheap row triggers (Migration20261127150000_insert_counts_per_row).
 *
 * A row trigger upserts the same counter row once per inserted row: an import of a million
 * finished payments in one statement updated one row a million times in one transaction, each
 * update walking the row's growing chain of versions (it had not finished in 25 minutes). Which
 * path a statement takes is the session's `pis.counts` setting:
 * - `row`: the service's single create, whose statement sets it for its own transaction
 *   (payments/payment-store.ts `insertPayment`; first set at connect, in db/orm.ts, which
 *   reopened connections missed): one small upsert per create, as before;
 * - anything else, including unset (psql, an import, a restore, the bench's seed): the statement
 *   triggers with their transition table, one set-based upsert per statement.
 * Either path keeps the same counts; the setting only chooses the cheaper one for the caller.
 * Updates and deletes are statement triggers already.
 */
export const ROW_PATH = `current_setting('pis.counts', true) = 'row'`;
const STATEMENT_PATH = `current_setting('pis.counts', true) is distinct from 'row'`;

export class Migration20261128100000_bulk_counts_per_statement extends Migration {
  override name = 'Migration20261128100000_bulk_counts_per_statement';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger "payment_count_insert" on "payment";`);
    this.addSql(`drop trigger "payment_finished_insert" on "payment";`);
    this.addSql(
      `create trigger "payment_count_insert" after insert on "payment" for each row when (new.mode = 'test' and ${ROW_PATH}) execute function payment_count_insert_row();`,
    );
    this.addSql(
      `create trigger "payment_finished_insert" after insert on "payment" for each row when (new.status in ${FINISHED} and ${ROW_PATH}) execute function payment_finished_insert_row();`,
    );
    for (const [name, move] of [
      ['payment_count_insert_statement', 'payment_count_move'],
      ['payment_day_volume_insert_statement', 'payment_day_volume_move'],
      ['payment_day_outcome_insert_statement', 'payment_day_outcome_move'],
    ]) {
      this.addSql(
        `create trigger "${name}" after insert on "payment" referencing new table as new_rows for each statement when (${STATEMENT_PATH}) execute function ${move}();`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const name of [
      'payment_count_insert_statement',
      'payment_day_volume_insert_statement',
      'payment_day_outcome_insert_statement',
    ]) {
      this.addSql(`drop trigger "${name}" on "payment";`);
    }
    this.addSql(`drop trigger "payment_count_insert" on "payment";`);
    this.addSql(`drop trigger "payment_finished_insert" on "payment";`);
    this.addSql(
      `create trigger "payment_count_insert" after insert on "payment" for each row when (new.mode = 'test') execute function payment_count_insert_row();`,
    );
    this.addSql(
      `create trigger "payment_finished_insert" after insert on "payment" for each row when (new.status in ${FINISHED}) execute function payment_finished_insert_row();`,
    );
  }
}
