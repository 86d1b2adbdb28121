import { Migration } from '@mikro-orm/migrations';

export class Migration20261122222213_dashboard_accounts extends Migration {
  override name = 'Migration20261122222213_dashboard_accounts';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "dashboard_user" ("id" varchar(40) not null, "organization_id" varchar(40) not null, "email" varchar(254) not null, "password_hash" text not null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(
      `create index "dashboard_user_organization_id_index" on "dashboard_user" ("organization_id");`,
    );
    this.addSql(
      `alter table "dashboard_user" add constraint "dashboard_user_email_unique" unique ("email");`,
    );

    this.addSql(
      `create table "dashboard_session" ("id" varchar(64) not null, "user_id" varchar(40) not null, "csrf_token" varchar(64) not null, "created_at" timestamptz not null, "last_seen_at" timestamptz not null, "expires_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "dashboard_session_user_id_index" on "dashboard_session" ("user_id");`);
    this.addSql(`create index "dashboard_session_expires_at_index" on "dashboard_session" ("expires_at");`);

    this.addSql(
      `alter table "api_key" add "name" varchar(100) not null default '', add "last_used_at" timestamptz null;`,
    );
    this.addSql(`update "api_key" set "name" = 'API key' where "name" = '';`);
    this.addSql(`alter table "api_key" add constraint "api_key_key_hash_unique" unique ("key_hash");`);

    this.addSql(
      `alter table "dashboard_user" add constraint "dashboard_user_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "dashboard_session" add constraint "dashboard_session_user_id_foreign" foreign key ("user_id") references "dashboard_user" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "dashboard_session" drop constraint "dashboard_session_user_id_foreign";`);

    this.addSql(`drop table if exists "dashboard_user" cascade;`);
    this.addSql(`drop table if exists "dashboard_session" cascade;`);

    this.addSql(`alter table "api_key" drop constraint "api_key_key_hash_unique";`);
    this.addSql(`alter table "api_key" drop column "name", drop column "last_used_at";`);
  }
}
