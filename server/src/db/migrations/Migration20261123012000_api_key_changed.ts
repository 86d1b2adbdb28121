import { Migration } from '@mikro-orm/migrations';

/**
 * Every change that can change what an API key proves notifies `api_key_changed` with the
 * organization's id, on commit: a key's secret, permissions, expiry or revocation, its
 * organization's activity, and the organization's approved providers. The processes' key
 * caches drop that organization's keys when they hear it (auth/api-key-cache.ts). Triggers, not
 * calls in the code: the CLI, the dashboard and an operator's SQL all change these tables.
 * `last_used_at` (written once a minute per key) and an organization's name or return origins
 * prove nothing and notify nothing.
 */
export class Migration20261123012000_api_key_changed extends Migration {
  override name = 'Migration20261123012000_api_key_changed';

  override up(): void | Promise<void> {
    this.addSql(`
      create function api_key_changed() returns trigger language plpgsql as $$
      begin
        -- The trigger's argument names the row's organization id column.
        perform pg_notify('api_key_changed',
          to_jsonb(case tg_op when 'DELETE' then old else new end) ->> tg_argv[0]);
        return null;
      end $$;`);
    this.addSql(`create trigger api_key_changed after update of key_hash, can_read, can_write, expires_at, revoked_at, organization_id or delete
      on "api_key" for each row execute function api_key_changed('organization_id');`);
    this.addSql(`create trigger api_key_changed after update of active, id or delete
      on "organization" for each row execute function api_key_changed('id');`);
    this.addSql(`create trigger api_key_changed after insert or update or delete
      on "organization_provider" for each row execute function api_key_changed('organization_id');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists api_key_changed on "organization_provider";`);
    this.addSql(`drop trigger if exists api_key_changed on "organization";`);
    this.addSql(`drop trigger if exists api_key_changed on "api_key";`);
    this.addSql(`drop function if exists api_key_changed();`);
  }
}
