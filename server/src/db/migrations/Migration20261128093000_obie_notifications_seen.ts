import { Migration } from '@mikro-orm/migrations';

/**
 * Each `obie` event notification is taken once (issue 31 item 7, its review): the `jti` of every
 * notification accepted in the last minutes. The rate-limit store did it first, but its windows
 * are fixed and aligned, so a notification received before a window's end was taken again just
 * after it. Rows older than a notification may be are deleted as new ones arrive.
 */
export class Migration20261128093000_obie_notifications_seen extends Migration {
  override name = 'Migration20261128093000_obie_notifications_seen';

  override up(): void | Promise<void> {
    this.addSql(`
      create table "obie_notification_seen" (
        "bank_id" varchar(100) not null,
        "jti" varchar(128) not null,
        "seen_at" timestamptz not null default now(),
        primary key ("bank_id", "jti")
      );`);
    this.addSql(`create index "obie_notification_seen_at" on "obie_notification_seen" ("seen_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "obie_notification_seen";');
  }
}
