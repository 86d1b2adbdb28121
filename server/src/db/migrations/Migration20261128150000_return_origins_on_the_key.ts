import { Migration } from '@mikro-orm/migrations';

/**
 * The key lookup also reads the organization's allowed return origins, and the key caches hold
 * them (a create checks its `redirectUrl` against them without a round trip of its own): a change
 * to them drops the organization's keys from every cache, like a change to its budgets.
 */
export class Migration20261128150000_return_origins_on_the_key extends Migration {
  override name = 'Migration20261128150000_return_origins_on_the_key';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger api_key_changed on "organization";`);
    this.addSql(`create trigger api_key_changed
      after update of active, id, reduced_budgets, budget_api_reads, budget_api_writes, budget_waits,
        allowed_return_origins or delete
      on "organization" for each row execute function api_key_changed('id');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger api_key_changed on "organization";`);
    this.addSql(`create trigger api_key_changed
      after update of active, id, reduced_budgets, budget_api_reads, budget_api_writes, budget_waits or delete
      on "organization" for each row execute function api_key_changed('id');`);
  }
}
