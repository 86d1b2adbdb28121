import { Migration } from '@mikro-orm/migrations';

/**
 * Hosted pages in the merchant's brand (issue 34 item 14): the brand a merchant sets in the
 * dashboard, in a table of its own (the logo's bytes stay out of the organization row), and the
 * operator's verification, without which the pages show the service's own look.
 */
export class Migration20261128110000_organization_brand extends Migration {
  override name = 'Migration20261128110000_organization_brand';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organization" add column "verified_at" timestamptz null;`);
    this.addSql(`
      create table "organization_brand" (
        "organization_id" varchar(40) not null primary key
          references "organization" ("id") on update cascade on delete cascade,
        "display_name" varchar(60) null,
        "accent_color" varchar(7) null,
        "logo" bytea null,
        "logo_type" varchar(20) null,
        "logo_hash" varchar(64) null,
        "updated_at" timestamptz not null
      );`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "organization_brand";');
    this.addSql('alter table "organization" drop column if exists "verified_at";');
  }
}
