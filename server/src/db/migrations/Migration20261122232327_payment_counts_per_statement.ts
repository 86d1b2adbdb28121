import { Migration } from '@mikro-orm/migrations';

/**
 * The kept payment counts (see Migration20261122221837_payment_counts), moved once per
 * statement instead of once per row: the worker's batch catch-up changes thousands of payments
 * of one organization in one statement, and a row trigger upserted the same counter row once per
 * payment. Postgres keeps every version of a row updated in the open transaction, so each upsert
 * walked all the earlier ones: 2,500 steps took ~2 s, almost all of it there. A statement
 * trigger sums its transition tables and upserts each (organization, status, provider) once, in
 * key order (two concurrent batches lock counter rows in the same order). Updates that move no
 * count (most: timestamps, due times) sum to nothing and write nothing. Transition tables allow
 * no column list, so the update trigger fires on every update statement and filters by the sums.
 */
export class Migration20261122232327_payment_counts_per_statement extends Migration {
  override name = 'Migration20261122232327_payment_counts_per_statement';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_count_insert_delete on "payment";`);
    this.addSql(`drop trigger if exists payment_count_update on "payment";`);
    this.addSql(`drop function if exists payment_count_track();`);
    this.addSql(`
      create function payment_count_move() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into payment_count as c (organization_id, status, provider, slot, count)
          select organization_id, status, provider, pg_backend_pid() % 8, count(*) from new_rows
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, status, provider, slot) do update set count = c.count + excluded.count;
        elsif tg_op = 'DELETE' then
          insert into payment_count as c (organization_id, status, provider, slot, count)
          select organization_id, status, provider, pg_backend_pid() % 8, -count(*) from old_rows
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, status, provider, slot) do update set count = c.count + excluded.count;
        else
          insert into payment_count as c (organization_id, status, provider, slot, count)
          select organization_id, status, provider, pg_backend_pid() % 8, sum(delta)
          from (
            select organization_id, status, provider, 1 as delta from new_rows
            union all
            select organization_id, status, provider, -1 from old_rows
          ) moved
          group by 1, 2, 3 having sum(delta) <> 0 order by 1, 2, 3
          on conflict (organization_id, status, provider, slot) do update set count = c.count + excluded.count;
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger payment_count_insert after insert on "payment" referencing new table as new_rows for each statement execute function payment_count_move();`,
    );
    this.addSql(
      `create trigger payment_count_delete after delete on "payment" referencing old table as old_rows for each statement execute function payment_count_move();`,
    );
    this.addSql(
      `create trigger payment_count_update after update on "payment" referencing old table as old_rows new table as new_rows for each statement execute function payment_count_move();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_count_insert on "payment";`);
    this.addSql(`drop trigger if exists payment_count_delete on "payment";`);
    this.addSql(`drop trigger if exists payment_count_update on "payment";`);
    this.addSql(`drop function if exists payment_count_move();`);
    this.addSql(`
      create function payment_count_track() returns trigger language plpgsql as $$
      declare
        counter_slot smallint := pg_backend_pid() % 8;
      begin
        if tg_op <> 'INSERT' then
          insert into payment_count as c values (old.organization_id, old.status, old.provider, counter_slot, -1)
            on conflict (organization_id, status, provider, slot) do update set count = c.count - 1;
        end if;
        if tg_op <> 'DELETE' then
          insert into payment_count as c values (new.organization_id, new.status, new.provider, counter_slot, 1)
            on conflict (organization_id, status, provider, slot) do update set count = c.count + 1;
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger payment_count_insert_delete after insert or delete on "payment" for each row execute function payment_count_track();`,
    );
    this.addSql(
      `create trigger payment_count_update after update of status, provider, organization_id on "payment" for each row when (old.status is distinct from new.status or old.provider is distinct from new.provider or old.organization_id is distinct from new.organization_id) execute function payment_count_track();`,
    );
  }
}
