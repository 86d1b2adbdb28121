import { Migration } from '@mikro-orm/migrations';

/**
 * Who made each history entry (issue 23 item 6): a member, the customer, the bank, the expiry or
 * an API key (shared `Actor`). Nullable with no default: a catalogue change only, and entries
 * made before it name nobody.
 */
export class Migration20261125173000_history_actor extends Migration {
  override name = 'Migration20261125173000_history_actor';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payment_history" add column "actor" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "payment_history" drop column "actor";`);
  }
}
