import { Migration } from '@mikro-orm/migrations';

/**
 * Saved payee accounts (issue 34 item 10): the merchant's own receiving accounts, chosen in the
 * dashboard's New payment. A handful per organization, read by organization.
 */
export class Migration20261128120000_saved_payees extends Migration {
  override name = 'Migration20261128120000_saved_payees';

  override up(): void | Promise<void> {
    this.addSql(`
      create table "saved_payee" (
        "id" varchar(40) not null primary key,
        "organization_id" varchar(40) not null
          references "organization" ("id") on update cascade on delete cascade,
        "label" varchar(60) not null,
        "account" jsonb not null,
        "created_at" timestamptz not null
      );`);
    this.addSql(`create index "saved_payee_organization_id_index" on "saved_payee" ("organization_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "saved_payee";');
  }
}
