import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 20, item 4. `request_log`: every /api request of an organization (written in batches by
 * observability/request-log.ts, after the answer; bodies masked before they are stored; rows
 * older than 30 days deleted by the workers). `audit_log`: who did what (observability/audit-log.ts),
 * append-only: a trigger refuses every UPDATE and DELETE, whoever asks (the service's role, the
 * dashboard, an operator's SQL short of dropping the trigger as the owner).
 */
export class Migration20261125140000_request_and_audit_logs extends Migration {
  override name = 'Migration20261125140000_request_and_audit_logs';

  override up(): void | Promise<void> {
    this.addSql(`
      create table "request_log" (
        "id" bigint generated always as identity primary key,
        "organization_id" varchar(40) not null,
        "at" timestamptz not null,
        "method" varchar(10) not null,
        "route" varchar(200) not null,
        "status" smallint not null,
        "error_code" varchar(60) null,
        "duration_ms" integer not null,
        "key_prefix" varchar(20) null,
        "request_id" varchar(128) not null,
        "idempotency_key" varchar(255) null,
        "request_body" text null,
        "response_body" text null
      );`);
    // The dashboard's list: one organization, newest first; filters narrow that range.
    this.addSql(
      `create index "request_log_organization_at" on "request_log" ("organization_id", "at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "request_log_organization_request_id" on "request_log" ("organization_id", "request_id");`,
    );
    // Retention deletes by age across organizations.
    this.addSql(`create index "request_log_at" on "request_log" ("at");`);

    this.addSql(`
      create table "audit_log" (
        "id" bigint generated always as identity primary key,
        "organization_id" varchar(40) null,
        "at" timestamptz not null default now(),
        "actor_type" varchar(20) not null,
        "actor" varchar(255) not null,
        "action" varchar(60) not null,
        "target" varchar(100) null,
        "details" jsonb null
      );`);
    this.addSql(
      `create index "audit_log_organization_at" on "audit_log" ("organization_id", "at" desc, "id" desc);`,
    );
    this.addSql(`
      create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'audit_log is append-only' using errcode = 'insufficient_privilege';
      end $$;`);
    this.addSql(`
      create trigger audit_log_append_only before update or delete on "audit_log"
        for each row execute function audit_log_append_only();`);
    this.addSql(`
      create trigger audit_log_no_truncate before truncate on "audit_log"
        for each statement execute function audit_log_append_only();`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "audit_log";');
    this.addSql('drop function if exists audit_log_append_only();');
    this.addSql('drop table if exists "request_log";');
  }
}
