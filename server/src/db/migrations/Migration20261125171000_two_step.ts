import { Migration } from '@mikro-orm/migrations';

/**
 * Two-step sign-in (issue 24 item 4, docs/decisions/045-two-step-sign-in.md): a user's TOTP
 * secret (never returned after setup), the last time step a code was accepted at (a code is
 * refused a second time), the recovery codes' SHA-256 hashes; an organization may require it;
 * the sign-in's second step is an account token of its own purpose.
 */
export class Migration20261125171000_two_step extends Migration {
  override name = 'Migration20261125171000_two_step';

  override up(): void | Promise<void> {
    this.addSql(`alter table "dashboard_user"
      add column "totp_secret" text null,
      add column "totp_pending_secret" text null,
      add column "totp_enabled_at" timestamptz null,
      add column "totp_last_step" bigint null,
      add column "totp_recovery_hashes" jsonb null;`);
    this.addSql(`alter table "organization" add column "require_two_step" boolean not null default false;`);
    this.addSql(`alter table "account_token" drop constraint "account_token_purpose_check";`);
    this.addSql(
      `alter table "account_token" add constraint "account_token_purpose_check" check ("purpose" in ('verify-email', 'password-reset', 'two-step'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "account_token" where "purpose" = 'two-step';`);
    this.addSql(`alter table "account_token" drop constraint "account_token_purpose_check";`);
    this.addSql(
      `alter table "account_token" add constraint "account_token_purpose_check" check ("purpose" in ('verify-email', 'password-reset'));`,
    );
    this.addSql(`alter table "organization" drop column "require_two_step";`);
    this.addSql(`alter table "dashboard_user"
      drop column "totp_secret", drop column "totp_pending_secret", drop column "totp_enabled_at",
      drop column "totp_last_step", drop column "totp_recovery_hashes";`);
  }
}
