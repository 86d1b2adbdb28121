import { Migration } from '@mikro-orm/migrations';

/**
 * Test clocks (issue 23 item 13): a payment's own clock offset, and history entries marked as
 * made by advancing it. Both have defaults, so the add is a catalogue change only (no rewrite of
 * a million rows) and every existing payment runs on the real clock.
 */
export class Migration20261125172000_test_clocks extends Migration {
  override name = 'Migration20261125172000_test_clocks';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payment" add column "clock_offset_seconds" int not null default 0;`);
    this.addSql(`alter table "payment_history" add column "simulated" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payment_history" drop column "simulated";`);
    this.addSql(`alter table "payment" drop column "clock_offset_seconds";`);
  }
}
