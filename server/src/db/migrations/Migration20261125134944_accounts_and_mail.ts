import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 24: mail deliveries (what went out, what failed), single-use account tokens (stored as
 * hashes) and when a user's email was verified. Written from `migration:create`'s diff, keeping
 * only these tables: its diff also proposed dropping the hand-written triggers it cannot see.
 */
export class Migration20261125134944_accounts_and_mail extends Migration {
  override name = 'Migration20261125134944_accounts_and_mail';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "mail_delivery" ("id" varchar(40) not null, "purpose" varchar(40) not null, "to_address" varchar(254) not null, "status" text not null, "attempts" int not null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "mail_delivery_status_created_at_idx" on "mail_delivery" ("status", "created_at");`,
    );
    this.addSql(
      `alter table "mail_delivery" add constraint "mail_delivery_status_check" check ("status" in ('queued', 'sent', 'failed'));`,
    );

    this.addSql(
      `create table "account_token" ("id" varchar(64) not null, "user_id" varchar(40) not null, "purpose" text not null, "email" varchar(254) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(`create index "account_token_user_id_index" on "account_token" ("user_id");`);
    this.addSql(
      `alter table "account_token" add constraint "account_token_user_id_foreign" foreign key ("user_id") references "dashboard_user" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "account_token" add constraint "account_token_purpose_check" check ("purpose" in ('verify-email', 'password-reset'));`,
    );

    this.addSql(`alter table "dashboard_user" add "email_verified_at" timestamptz null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "mail_delivery" cascade;`);
    this.addSql(`drop table if exists "account_token" cascade;`);
    this.addSql(`alter table "dashboard_user" drop column "email_verified_at";`);
  }
}
