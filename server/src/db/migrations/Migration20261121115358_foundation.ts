import { Migration } from '@mikro-orm/migrations';

export class Migration20261121115358_foundation extends Migration {
  override name = 'Migration20261121115358_foundation';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "organization" ("id" varchar(40) not null, "name" varchar(200) not null, "active" boolean not null default true, "created_at" timestamptz not null, primary key ("id"));`,
    );

    this.addSql(
      `create table "api_key" ("id" varchar(40) not null, "organization_id" varchar(40) not null, "prefix" varchar(20) not null, "key_hash" varchar(64) not null, "can_read" boolean not null, "can_write" boolean not null, "expires_at" timestamptz null, "revoked_at" timestamptz null, "created_at" timestamptz not null, primary key ("id"));`,
    );
    this.addSql(`create index "api_key_organization_id_index" on "api_key" ("organization_id");`);
    this.addSql(`alter table "api_key" add constraint "api_key_prefix_unique" unique ("prefix");`);

    this.addSql(
      `create table "organization_provider" ("organization_id" varchar(40) not null, "provider" varchar(50) not null, "approved_at" timestamptz not null, primary key ("organization_id", "provider"));`,
    );

    this.addSql(
      `alter table "api_key" add constraint "api_key_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "organization_provider" add constraint "organization_provider_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "api_key" drop constraint "api_key_organization_id_foreign";`);
    this.addSql(
      `alter table "organization_provider" drop constraint "organization_provider_organization_id_foreign";`,
    );

    this.addSql(`drop table if exists "organization" cascade;`);
    this.addSql(`drop table if exists "api_key" cascade;`);
    this.addSql(`drop table if exists "organization_provider" cascade;`);
  }
}
