import { Migration } from '@mikro-orm/migrations';

/**
 * Every change that can change what an API key proves notifies `api_key_changed` with the
 * organization's id (a TRUNCATE: an empty one, meaning all), on commit: a key's secret, permissions, expiry or revocation, its
 * organization's activity, and the organization's approved providers. The processes' key
 * caches drop that organization's keys when they hear it (auth/api-key-cache.ts). Triggers, not
 * calls in the code: the CLI, the dashboard and an operator's SQL all change these tables.
 * `last_used_at` (written once a minute per key) and an organization's name or return origins
 * prove nothing and notify nothing.
 */
const TABLES = ['api_key', 'organization', 'organization_provider'];

export class Migration20261123012000_api_key_changed extends Migration {
  override name = 'Migration20261123012000_api_key_changed';

  override up(): void | Promise<void> {
    // The trigger's argument names the row's organization id column. A key moved to another
    // organization notifies both: the old one's caches hold it.
    this.addSql(`
      create function api_key_changed() returns trigger language plpgsql as $$
      declare
        before text;
        after text;
      begin
        if tg_op <> 'INSERT' then
          before := to_jsonb(old) ->> tg_argv[0];
          perform pg_notify('api_key_changed', before);
        end if;
        if tg_op <> 'DELETE' then
          after := to_jsonb(new) ->> tg_argv[0];
          if after is distinct from before then perform pg_notify('api_key_changed', after); end if;
        end if;
        return null;
      end $$;`);
    this.addSql(`create trigger api_key_changed after update of key_hash, can_read, can_write, expires_at, revoked_at, organization_id or delete
      on "api_key" for each row execute function api_key_changed('organization_id');`);
    this.addSql(`create trigger api_key_changed after update of active, id or delete
      on "organization" for each row execute function api_key_changed('id');`);
    this.addSql(`create trigger api_key_changed after insert or update or delete
      on "organization_provider" for each row execute function api_key_changed('organization_id');`);
    // TRUNCATE fires no row trigger: it empties every cache (an empty organization id).
    this.addSql(`
      create function api_key_truncated() returns trigger language plpgsql as $$
      begin
        perform pg_notify('api_key_changed', '');
        return null;
      end $$;`);
    for (const table of TABLES) {
      this.addSql(
        `create trigger api_key_truncated after truncate on "${table}" for each statement execute function api_key_truncated();`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of TABLES) {
      this.addSql(`drop trigger if exists api_key_truncated on "${table}";`);
      this.addSql(`drop trigger if exists api_key_changed on "${table}";`);
    }
    this.addSql(`drop function if exists api_key_truncated();`);
    this.addSql(`drop function if exists api_key_changed();`);
  }
}
