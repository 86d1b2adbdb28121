import { Migration } from '@mikro-orm/migrations';

/**
 * Live and test modes (issue 19 item 5): every API key has a mode, test unless the operator made
 * it live, and every payment the mode of the key that made it. Existing keys and payments are
 * test. The kept payment counts (payment_count, read by list totals and the overview) count test
 * payments only: a live list counts its rows (live payments only exist for organizations
 * approved for a real bank, and are few here); see docs/decisions/072-live-and-test-modes.md.
 */
export class Migration20261125170000_live_and_test_modes extends Migration {
  override name = 'Migration20261125170000_live_and_test_modes';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "api_key" add column "mode" text not null default 'test' check ("mode" in ('test', 'live'));`,
    );
    this.addSql(
      `alter table "payment" add column "mode" text not null default 'test' check ("mode" in ('test', 'live'));`,
    );
    this.addSql(`
      create or replace function payment_count_move() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into payment_count as c (organization_id, status, provider, slot, count)
          select organization_id, status, provider, pg_backend_pid() % 8, count(*) from new_rows
          where mode = 'test'
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, status, provider, slot) do update set count = c.count + excluded.count;
        elsif tg_op = 'DELETE' then
          insert into payment_count as c (organization_id, status, provider, slot, count)
          select organization_id, status, provider, pg_backend_pid() % 8, -count(*) from old_rows
          where mode = 'test'
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, status, provider, slot) do update set count = c.count + excluded.count;
        else
          insert into payment_count as c (organization_id, status, provider, slot, count)
          select organization_id, status, provider, pg_backend_pid() % 8, sum(delta)
          from (
            select organization_id, status, provider, 1 as delta from new_rows where mode = 'test'
            union all
            select organization_id, status, provider, -1 from old_rows where mode = 'test'
          ) moved
          group by 1, 2, 3 having sum(delta) <> 0 order by 1, 2, 3
          on conflict (organization_id, status, provider, slot) do update set count = c.count + excluded.count;
        end if;
        return null;
      end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`
      create or replace function payment_count_move() returns trigger language plpgsql as $$
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
    this.addSql(`alter table "payment" drop column "mode";`);
    this.addSql(`alter table "api_key" drop column "mode";`);
  }
}
