import { Migration } from '@mikro-orm/migrations';
import { FINISHED, outcomeKeys } from './Migration20261125174000_payment_day_outcome.ts';

/**
 * The kept counts on insert, per row instead of per statement (issue 22, the create's hot path).
 * A payment is always inserted alone (one per statement: payments/payment-store.ts
 * `insertPayment`), so a statement trigger's transition table bought nothing there and cost a
 * create ~90 µs of Postgres CPU (`npm run bench`): three of them fired on every insert, and two
 * (the day volume and the outcomes) count only finished payments, which an insert never makes.
 * Now:
 * - `payment_count_insert` is a row trigger for test payments (the kept counts count test
 *   payments only, decision 072), one upsert;
 * - `payment_finished_insert` fires only for a row inserted already finished (`WHEN`: Postgres
 *   evaluates it without calling any function), doing what the two statement triggers did.
 * Updates and deletes keep their statement triggers: the worker's batch catch-up changes thousands
 * of payments in one statement (Migration20261122232327_payment_counts_per_statement).
 */
/** One inserted test payment (`new`) counted in `payment_count`: a PL/pgSQL statement. */
export const COUNT_INSERTED = `
        insert into payment_count as c (organization_id, status, provider, slot, count)
        values (new.organization_id, new.status, new.provider, pg_backend_pid() % 8, 1)
        on conflict (organization_id, status, provider, slot) do update set count = c.count + 1;`;

/** One payment (`new`) inserted already finished, counted in the day volume and outcomes. */
export const COUNT_FINISHED_INSERTED = `
        if new.status = 'COMPLETED' and new.mode = 'test' then
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          values (new.organization_id, (new.created_at at time zone 'UTC')::date, new.currency,
            pg_backend_pid() % 8, 1, new.amount_value)
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        end if;
        insert into payment_day_outcome as o (organization_id, day, kind, key, slot, count)
        select organization_id, day, kind, key, pg_backend_pid() % 8, sum(delta)
        from (${outcomeKeys('(select new.*) as inserted', 1)}) moved
        group by 1, 2, 3, 4 order by 1, 2, 3, 4
        on conflict (organization_id, day, kind, key, slot) do update set count = o.count + excluded.count;`;

export class Migration20261127150000_insert_counts_per_row extends Migration {
  override name = 'Migration20261127150000_insert_counts_per_row';

  override up(): void | Promise<void> {
    this.addSql(`
      create function payment_count_insert_row() returns trigger language plpgsql as $$
      begin
        ${COUNT_INSERTED}
        return null;
      end $$;`);
    this.addSql(`
      create function payment_finished_insert_row() returns trigger language plpgsql as $$
      begin
        ${COUNT_FINISHED_INSERTED}
        return null;
      end $$;`);
    this.addSql(`drop trigger "payment_count_insert" on "payment";`);
    this.addSql(`drop trigger "payment_day_volume_insert" on "payment";`);
    this.addSql(`drop trigger "payment_day_outcome_insert" on "payment";`);
    this.addSql(
      `create trigger "payment_count_insert" after insert on "payment" for each row when (new.mode = 'test') execute function payment_count_insert_row();`,
    );
    this.addSql(
      `create trigger "payment_finished_insert" after insert on "payment" for each row when (new.status in ${FINISHED}) execute function payment_finished_insert_row();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger "payment_count_insert" on "payment";`);
    this.addSql(`drop trigger "payment_finished_insert" on "payment";`);
    this.addSql(
      `create trigger payment_count_insert after insert on "payment" referencing new table as new_rows for each statement execute function payment_count_move();`,
    );
    this.addSql(
      `create trigger payment_day_volume_insert after insert on "payment" referencing new table as new_rows for each statement execute function payment_day_volume_move();`,
    );
    this.addSql(
      `create trigger payment_day_outcome_insert after insert on "payment" referencing new table as new_rows for each statement execute function payment_day_outcome_move();`,
    );
    this.addSql(`drop function payment_finished_insert_row();`);
    this.addSql(`drop function payment_count_insert_row();`);
  }
}
