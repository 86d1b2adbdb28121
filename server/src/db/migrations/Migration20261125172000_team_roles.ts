import { Migration } from '@mikro-orm/migrations';

/**
 * Team members and roles (issue 24 item 5, docs/decisions/046-team-and-roles.md): a role per
 * user (everyone before this was the one person of their organization: an owner), and
 * invitations (a link, 7 days, single use, stored as SHA-256).
 */
export class Migration20261125172000_team_roles extends Migration {
  override name = 'Migration20261125172000_team_roles';

  override up(): void | Promise<void> {
    this.addSql(`alter table "dashboard_user" add column "role" text not null default 'owner'
      check ("role" in ('owner', 'developer', 'support', 'viewer'));`);
    this.addSql(`create table "invitation" (
      "id" varchar(64) not null,
      "organization_id" varchar(40) not null references "organization" ("id") on delete cascade,
      "email" varchar(254) not null,
      "role" text not null check ("role" in ('owner', 'developer', 'support', 'viewer')),
      "invited_by" varchar(254) not null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      "accepted_at" timestamptz null,
      primary key ("id"));`);
    this.addSql(`create index "invitation_organization_id_index" on "invitation" ("organization_id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "invitation";`);
    this.addSql(`alter table "dashboard_user" drop column "role";`);
  }
}
