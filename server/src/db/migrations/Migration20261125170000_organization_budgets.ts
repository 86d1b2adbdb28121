import { Migration } from '@mikro-orm/migrations';

/**
 * Budgets per organization (issue 24 item 6, docs/decisions/044-organization-budgets.md): a
 * self-serve organization starts reduced; an operator may set its own numbers. Existing
 * organizations keep the defaults (they were made before sign-ups were limited, and by people).
 */
export class Migration20261125170000_organization_budgets extends Migration {
  override name = 'Migration20261125170000_organization_budgets';

  override up(): void | Promise<void> {
    this.addSql(`alter table "organization"
      add column "reduced_budgets" boolean not null default false,
      add column "budget_api_reads" int null check ("budget_api_reads" > 0),
      add column "budget_api_writes" int null check ("budget_api_writes" > 0),
      add column "budget_waits" int null check ("budget_waits" >= 0);`);
    // The key caches hold an organization's budgets with its keys: a change drops them.
    this.addSql(`drop trigger api_key_changed on "organization";`);
    this.addSql(`create trigger api_key_changed
      after update of active, id, reduced_budgets, budget_api_reads, budget_api_writes, budget_waits or delete
      on "organization" for each row execute function api_key_changed('id');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger api_key_changed on "organization";`);
    this.addSql(`create trigger api_key_changed after update of active, id or delete
      on "organization" for each row execute function api_key_changed('id');`);
    this.addSql(`alter table "organization"
      drop column "reduced_budgets", drop column "budget_api_reads",
      drop column "budget_api_writes", drop column "budget_waits";`);
  }
}
