import { Migration } from '@mikro-orm/migrations';

export const FINISHED = `('COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED')`;

/**
 * The keys one set of payment rows (`new_rows`, `old_rows`, or `payment` for a rebuild) counts
 * under, with the sign it counts: also used by the bench's bulk seed, which loads with triggers off.
 */
export const outcomeKeys = (rows: string, sign: number) => `
  select organization_id, (created_at at time zone 'UTC')::date as day, 'status' as kind, status::text as key, ${sign} as delta
  from ${rows} where status in ${FINISHED}
  union all
  select organization_id, (created_at at time zone 'UTC')::date, 'bank', coalesce(bank_id, ''), ${sign}
  from ${rows} where status = 'COMPLETED'
  union all
  select organization_id, (created_at at time zone 'UTC')::date, 'reason', coalesce(iso_reason::text, ''), ${sign}
  from ${rows} where status = 'FAILED'
  union all
  select organization_id, (created_at at time zone 'UTC')::date, 'seconds',
    payment_seconds_bucket(extract(epoch from completed_at - created_at))::text, ${sign}
  from ${rows} where status = 'COMPLETED' and completed_at is not null`;

/**
 * What the overview says about how business went (issue 23 item 8), kept exact in the writing
 * transaction like payment_day_volume: per organization, UTC creation day, `kind` and `key`, how
 * many finished payments there were, so 7, 30 or 90 days read a few hundred rows however many
 * payments an organization makes. A finished payment counts once under each kind that applies:
 * - `status`: its finished status (success rate = COMPLETED of all of them);
 * - `bank`: the bank of a COMPLETED payment (top banks);
 * - `reason`: the ISO reason of a FAILED payment (top failure reasons);
 * - `seconds`: for a COMPLETED payment, the bucket of its time from creation to completion
 *   (`payment_seconds_bucket`: steps of 10 %, so the median is read to within 5 %).
 * A finished payment never changes again, so a row only ever grows; deletes take their rows
 * back. `slot` spreads a key over a few rows (as payment_count); only the sum means anything.
 */
export class Migration20261125174000_payment_day_outcome extends Migration {
  override name = 'Migration20261125174000_payment_day_outcome';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payment_day_outcome" ("organization_id" varchar(40) not null, "day" date not null, "kind" varchar(8) not null, "key" varchar(100) not null, "slot" smallint not null, "count" bigint not null, primary key ("organization_id", "day", "kind", "key", "slot"));`,
    );
    this.addSql(`
      create function payment_seconds_bucket(seconds double precision) returns smallint
      language sql immutable parallel safe as $$
        select case when seconds < 1 then 0 else least(200, 1 + floor(ln(seconds) / ln(1.1)))::smallint end
      $$;`);
    const upsert = (source: string) => `
      insert into payment_day_outcome as o (organization_id, day, kind, key, slot, count)
      select organization_id, day, kind, key, pg_backend_pid() % 8, sum(delta)
      from (${source}) moved
      group by 1, 2, 3, 4 having sum(delta) <> 0 order by 1, 2, 3, 4
      on conflict (organization_id, day, kind, key, slot) do update set count = o.count + excluded.count;`;
    this.addSql(`
      create function payment_day_outcome_move() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          ${upsert(outcomeKeys('new_rows', 1))}
        elsif tg_op = 'DELETE' then
          ${upsert(outcomeKeys('old_rows', -1))}
        else
          ${upsert(`${outcomeKeys('new_rows', 1)} union all ${outcomeKeys('old_rows', -1)}`)}
        end if;
        return null;
      end $$;`);
    this.addSql(
      `create trigger payment_day_outcome_insert after insert on "payment" referencing new table as new_rows for each statement execute function payment_day_outcome_move();`,
    );
    this.addSql(
      `create trigger payment_day_outcome_delete after delete on "payment" referencing old table as old_rows for each statement execute function payment_day_outcome_move();`,
    );
    this.addSql(
      `create trigger payment_day_outcome_update after update on "payment" referencing old table as old_rows new table as new_rows for each statement execute function payment_day_outcome_move();`,
    );
    this.addSql(`
      insert into payment_day_outcome (organization_id, day, kind, key, slot, count)
      select organization_id, day, kind, key, 0, sum(delta) from (${outcomeKeys('payment', 1)}) existing
      group by 1, 2, 3, 4;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_day_outcome_insert on "payment";`);
    this.addSql(`drop trigger if exists payment_day_outcome_delete on "payment";`);
    this.addSql(`drop trigger if exists payment_day_outcome_update on "payment";`);
    this.addSql(`drop function if exists payment_day_outcome_move();`);
    this.addSql(`drop function if exists payment_seconds_bucket(double precision);`);
    this.addSql(`drop table if exists "payment_day_outcome" cascade;`);
  }
}
