import { Migration } from '@mikro-orm/migrations';

/**
 * Every change to a payment notifies `payment_changed` with its id, delivered on commit (see
 * db/notifications.ts). A trigger rather than a call in applyPaymentEvent: no write path (the
 * locked event path, the worker's batch catch-up, provider claims, an operator's SQL) can
 * forget it. Postgres folds identical notifications of one transaction into one.
 *
 * (migration:create's diff wanted to drop the payment_count triggers it does not model; this
 * migration is written by hand.)
 */
export class Migration20261122230736_payment_notify extends Migration {
  override name = 'Migration20261122230736_payment_notify';

  override up(): void | Promise<void> {
    this.addSql(`
      create function payment_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('payment_changed', new.id);
        return null;
      end $$;`);
    this.addSql(
      `create trigger payment_notify after insert or update on "payment" for each row execute function payment_notify();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists payment_notify on "payment";`);
    this.addSql(`drop function if exists payment_notify();`);
  }
}
