import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log's append-only rule in the grants too, not only in its trigger: where the service
 * runs as its own role (`pis_app`, docker/postgres/init-roles.sh, which grants UPDATE and DELETE
 * on every table by default), that role may only add and read entries. (A deployment where the
 * service's role owns the tables can still drop the trigger: docs/operations.md says not to.)
 */
export class Migration20261125184000_audit_log_grants extends Migration {
  override name = 'Migration20261125184000_audit_log_grants';

  override up(): void | Promise<void> {
    this.addSql(`
      do $$ begin
        if exists (select from pg_roles where rolname = 'pis_app') then
          revoke update, delete, truncate on audit_log from pis_app;
        end if;
      end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`
      do $$ begin
        if exists (select from pg_roles where rolname = 'pis_app') then
          grant update, delete on audit_log to pis_app;
        end if;
      end $$;`);
  }
}
