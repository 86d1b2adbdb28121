import { Migration } from '@mikro-orm/migrations';

/**
 * `payment_changed` on updates only (issue 22's hot path): a notification is "read this payment
 * again", and nobody can be waiting on a payment that did not exist a moment ago (a waiting
 * read holds the ETag of a payment it has read). The insert's notification made every create
 * queue a NOTIFY and woke every listening process for nothing.
 */
export class Migration20261125170000_payment_notify_on_update extends Migration {
  override name = 'Migration20261125170000_payment_notify_on_update';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_notify on "payment";`);
    this.addSql(
      `create trigger payment_notify after update on "payment" for each row execute function payment_notify();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_notify on "payment";`);
    this.addSql(
      `create trigger payment_notify after insert or update on "payment" for each row execute function payment_notify();`,
    );
  }
}
