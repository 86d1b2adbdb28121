import { Migration } from '@mikro-orm/migrations';

/**
 * The `obie` provider (issue 19): the bank's consent and payment statuses kept on the payment as
 * facts of their own, and the adapter's per-payment authorization state (consent id, the
 * customer's state/nonce/PKCE verifier, the bank's payment id).
 */
export class Migration20261125143000_obie_provider extends Migration {
  override name = 'Migration20261125143000_obie_provider';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "payment" add column "consent_status" varchar(10) null, add column "bank_status" varchar(10) null;`,
    );
    this.addSql(
      `create table "obie_authorization" ("payment_id" varchar(40) not null, "bank_id" varchar(100) not null, "consent_id" varchar(128) not null, "state" varchar(128) not null, "nonce" varchar(128) not null, "code_verifier" varchar(128) not null, "callback_at" timestamptz null, "bank_payment_id" varchar(128) null, "created_at" timestamptz not null, primary key ("payment_id"));`,
    );
    this.addSql(
      `alter table "obie_authorization" add constraint "obie_authorization_state_unique" unique ("state");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "obie_authorization";`);
    this.addSql(`alter table "payment" drop column "consent_status", drop column "bank_status";`);
  }
}
