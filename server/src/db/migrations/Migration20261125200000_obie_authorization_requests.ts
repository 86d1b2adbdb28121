import { Migration } from '@mikro-orm/migrations';

/**
 * An `obie` payment's authorization requests (state, nonce, PKCE verifier) move to a table of
 * their own: one is made each time the customer opens our link, not once at create, and every
 * open one stays good (docs/decisions/070-obie-provider.md). A request waiting for its answer
 * when this runs is kept.
 */
export class Migration20261125200000_obie_authorization_requests extends Migration {
  override name = 'Migration20261125200000_obie_authorization_requests';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "obie_authorization_request" ("state" varchar(128) not null, "payment_id" varchar(40) not null, "nonce" varchar(128) not null, "code_verifier" varchar(128) not null, "created_at" timestamptz not null, primary key ("state"));`,
    );
    this.addSql(
      `create index "obie_authorization_request_payment_id_index" on "obie_authorization_request" ("payment_id");`,
    );
    this.addSql(
      `insert into "obie_authorization_request" ("state", "payment_id", "nonce", "code_verifier", "created_at") select "state", "payment_id", "nonce", "code_verifier", "created_at" from "obie_authorization" where "callback_at" is null;`,
    );
    this.addSql(
      `alter table "obie_authorization" drop constraint "obie_authorization_state_unique", drop column "state", drop column "nonce", drop column "code_verifier";`,
    );
  }

  override down(): void | Promise<void> {
    // Back to one request per payment: its latest.
    this.addSql(
      `alter table "obie_authorization" add column "state" varchar(128) null, add column "nonce" varchar(128) null, add column "code_verifier" varchar(128) null;`,
    );
    this.addSql(
      `update "obie_authorization" a set "state" = r."state", "nonce" = r."nonce", "code_verifier" = r."code_verifier" from (select distinct on ("payment_id") * from "obie_authorization_request" order by "payment_id", "created_at" desc) r where r."payment_id" = a."payment_id";`,
    );
    this.addSql(
      `update "obie_authorization" set "state" = 'void.' || "payment_id", "nonce" = 'void', "code_verifier" = 'void' where "state" is null;`,
    );
    this.addSql(
      `alter table "obie_authorization" alter column "state" set not null, alter column "nonce" set not null, alter column "code_verifier" set not null, add constraint "obie_authorization_state_unique" unique ("state");`,
    );
    this.addSql(`drop table if exists "obie_authorization_request";`);
  }
}
