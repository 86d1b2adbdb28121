import { Migration } from '@mikro-orm/migrations';

/**
 * An `obie` payment's authorization requests (state, nonce, PKCE verifier) move to a table of
 * their own: one is made each time the customer opens our link, not once at create, and every
 * open one stays good (docs/decisions/070-obie-provider.md). A request waiting for its answer
 * when this runs is kept. Additive, as every migration (docs/operations.md: migrations run
 * first, the previous build serves until replaced): the old columns stay, nullable (the unique
 * `state` takes any number of nulls, and keeps its index for the lookup), so the previous build still starts payments and takes callbacks, and
 * this build finds a request the previous one made there (obie-provider.ts). A later release
 * drops them.
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
      `alter table "obie_authorization" alter column "state" drop not null, alter column "nonce" drop not null, alter column "code_verifier" drop not null;`,
    );
  }

  override down(): void | Promise<void> {
    // Back to one request per payment: its latest (the previous build reads only these columns).
    this.addSql(
      `update "obie_authorization" a set "state" = r."state", "nonce" = r."nonce", "code_verifier" = r."code_verifier" from (select distinct on ("payment_id") * from "obie_authorization_request" order by "payment_id", "created_at" desc) r where r."payment_id" = a."payment_id";`,
    );
    this.addSql(
      `update "obie_authorization" set "state" = 'void.' || "payment_id", "nonce" = 'void', "code_verifier" = 'void' where "state" is null;`,
    );
    this.addSql(
      `alter table "obie_authorization" alter column "state" set not null, alter column "nonce" set not null, alter column "code_verifier" set not null;`,
    );
    this.addSql(`drop table if exists "obie_authorization_request";`);
  }
}
