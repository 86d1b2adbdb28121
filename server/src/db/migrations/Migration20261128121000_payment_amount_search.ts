import { Migration } from '@mikro-orm/migrations';

/**
 * The list's search finds an exact amount too (issue 34 item 8): a btree on (organization_id,
 * amount_value), so a search's `or p.amount_value = ?` arm is an index scan of its own in the
 * bitmap beside the id, end-to-end id and trigram indexes (Migration20261125150000_payment_search),
 * never a walk of the organization's payments.
 */
export class Migration20261128121000_payment_amount_search extends Migration {
  override name = 'Migration20261128121000_payment_amount_search';

  override up(): void | Promise<void> {
    this.addSql(`create index "payment_org_amount_idx" on "payment" ("organization_id", "amount_value");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "payment_org_amount_idx";`);
  }
}
