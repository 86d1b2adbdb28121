import { Migration } from '@mikro-orm/migrations';

/**
 * Live and test modes, second part (docs/decisions/072-live-and-test-modes.md): the dashboard's
 * test/live switch is the session's (`dashboard_session.mode`), and the overview's kept day
 * volumes count test payments only, as the kept counts do since
 * Migration20261125170000_live_and_test_modes (a live overview reads its rows).
 */
export class Migration20261125180000_dashboard_mode_and_test_volumes extends Migration {
  override name = 'Migration20261125180000_dashboard_mode_and_test_volumes';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "dashboard_session" add column "mode" text not null default 'test' check ("mode" in ('test', 'live'));`,
    );
    this.addSql(`
      create or replace function payment_day_volume_move() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          select organization_id, (created_at at time zone 'UTC')::date, currency, pg_backend_pid() % 8,
            count(*), sum(amount_value)
          from new_rows where status = 'COMPLETED' and mode = 'test'
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        elsif tg_op = 'DELETE' then
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          select organization_id, (created_at at time zone 'UTC')::date, currency, pg_backend_pid() % 8,
            -count(*), -sum(amount_value)
          from old_rows where status = 'COMPLETED' and mode = 'test'
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        else
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          select organization_id, day, currency, pg_backend_pid() % 8, sum(delta), sum(amount)
          from (
            select organization_id, (created_at at time zone 'UTC')::date as day, currency,
              1 as delta, amount_value as amount
            from new_rows where status = 'COMPLETED' and mode = 'test'
            union all
            select organization_id, (created_at at time zone 'UTC')::date, currency, -1, -amount_value
            from old_rows where status = 'COMPLETED' and mode = 'test'
          ) moved
          group by 1, 2, 3 having sum(delta) <> 0 or sum(amount) <> 0 order by 1, 2, 3
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        end if;
        return null;
      end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`
      create or replace function payment_day_volume_move() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          select organization_id, (created_at at time zone 'UTC')::date, currency, pg_backend_pid() % 8,
            count(*), sum(amount_value)
          from new_rows where status = 'COMPLETED'
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        elsif tg_op = 'DELETE' then
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          select organization_id, (created_at at time zone 'UTC')::date, currency, pg_backend_pid() % 8,
            -count(*), -sum(amount_value)
          from old_rows where status = 'COMPLETED'
          group by 1, 2, 3 order by 1, 2, 3
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        else
          insert into payment_day_volume as v (organization_id, day, currency, slot, count, value)
          select organization_id, day, currency, pg_backend_pid() % 8, sum(delta), sum(amount)
          from (
            select organization_id, (created_at at time zone 'UTC')::date as day, currency,
              1 as delta, amount_value as amount
            from new_rows where status = 'COMPLETED'
            union all
            select organization_id, (created_at at time zone 'UTC')::date, currency, -1, -amount_value
            from old_rows where status = 'COMPLETED'
          ) moved
          group by 1, 2, 3 having sum(delta) <> 0 or sum(amount) <> 0 order by 1, 2, 3
          on conflict (organization_id, day, currency, slot)
          do update set count = v.count + excluded.count, value = v.value + excluded.value;
        end if;
        return null;
      end $$;`);
    this.addSql(`alter table "dashboard_session" drop column "mode";`);
  }
}
