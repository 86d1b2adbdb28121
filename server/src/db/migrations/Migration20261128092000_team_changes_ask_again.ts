import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 31 item 6. A session's `authenticated_at`: when its member last proved who they are (the
 * sign-in, or confirming the password or a two-step code since); team changes ask again past 15
 * minutes. An invitation's `withdrawn_at` (an Owner withdrew it, or the session that made it was
 * ended by "Sign out everywhere" or a password change) and who made it: `invited_by_user`,
 * `invited_by_session` (the session's id, itself a hash).
 */
export class Migration20261128092000_team_changes_ask_again extends Migration {
  override name = 'Migration20261128092000_team_changes_ask_again';

  override up(): void | Promise<void> {
    this.addSql(`alter table "dashboard_session" add column "authenticated_at" timestamptz null;`);
    this.addSql(`update "dashboard_session" set "authenticated_at" = "created_at";`);
    this.addSql(`alter table "dashboard_session" alter column "authenticated_at" set not null;`);
    this.addSql(`
      alter table "invitation"
        add column "withdrawn_at" timestamptz null,
        add column "invited_by_user" varchar(40) null,
        add column "invited_by_session" varchar(64) null;`);
    this.addSql(
      `create index "invitation_invited_by_user_idx" on "invitation" ("invited_by_user") where "accepted_at" is null and "withdrawn_at" is null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "invitation_invited_by_user_idx";`);
    this.addSql(
      `alter table "invitation" drop column "withdrawn_at", drop column "invited_by_user", drop column "invited_by_session";`,
    );
    this.addSql(`alter table "dashboard_session" drop column "authenticated_at";`);
  }
}
