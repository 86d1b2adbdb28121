import { Migration } from '@mikro-orm/migrations';

/**
 * Exact list totals without counting rows: see entities/payment-count.entity.ts. The trigger
 * runs in the writing transaction, so a count can never drift from the rows it counts; the
 * backfill counts what existed before it.
 */
export class Migration20261122221837_payment_counts extends Migration {
  override name = 'Migration20261122221837_payment_counts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payment_count" ("organization_id" varchar(40) not null, "status" text not null, "provider" varchar(50) not null, "slot" smallint not null, "count" bigint not null, primary key ("organization_id", "status", "provider", "slot"));`,
    );
    this.addSql(
      `alter table "payment_count" add constraint "payment_count_status_check" check ("status" in ('PENDING', 'AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'));`,
    );
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
    // Most updates (timestamps, due times, the version) leave the counted columns alone.
    this.addSql(
      `create trigger payment_count_update after update of status, provider, organization_id on "payment" for each row when (old.status is distinct from new.status or old.provider is distinct from new.provider or old.organization_id is distinct from new.organization_id) execute function payment_count_track();`,
    );
    this.addSql(
      `insert into payment_count select organization_id, status, provider, 0, count(*) from payment group by organization_id, status, provider;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_count_update on "payment";`);
    this.addSql(`drop trigger if exists payment_count_insert_delete on "payment";`);
    this.addSql(`drop function if exists payment_count_track();`);
    this.addSql(`drop table if exists "payment_count" cascade;`);
  }
}
