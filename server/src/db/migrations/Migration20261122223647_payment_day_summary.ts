import { Migration } from '@mikro-orm/migrations';

export class Migration20261122223647_payment_day_summary extends Migration {
  override name = 'Migration20261122223647_payment_day_summary';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payment_day_summary" ("organization_id" varchar(40) not null, "day" date not null, "status" text not null, "currency" varchar(3) not null, "count" int not null, "value" numeric not null, primary key ("organization_id", "day", "status", "currency"));`,
    );

    this.addSql(
      `create table "payment_summary_progress" ("organization_id" varchar(40) not null, "summarized_before" timestamptz not null, primary key ("organization_id"));`,
    );

    this.addSql(
      `alter table "payment_day_summary" add constraint "payment_day_summary_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "payment_day_summary" add constraint "payment_day_summary_status_check" check ("status" in ('PENDING', 'AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'));`,
    );

    this.addSql(
      `alter table "payment_summary_progress" add constraint "payment_summary_progress_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "payment_day_summary" cascade;`);
    this.addSql(`drop table if exists "payment_summary_progress" cascade;`);
  }
}
