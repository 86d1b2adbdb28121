import { Migration } from '@mikro-orm/migrations';

/**
 * Test and live are two `Idempotency-Key` namespaces (issue 31 item 3). Keys were per organization
 * only, so a live key replaying a test key's `Idempotency-Key` was answered the test payment's 201
 * (its customer link included), and the other way round. The key's mode joins the claim's primary
 * key; a replay across modes is a new request of its own mode. Existing claims were all made by
 * test keys or by live ones: they are carried over as test (live payments exist only for the few
 * organizations approved for a real bank, and a 24 h key ages out).
 */
export class Migration20261128090000_idempotency_per_mode extends Migration {
  override name = 'Migration20261128090000_idempotency_per_mode';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "idempotency_key" add column "mode" text not null default 'test' check ("mode" in ('test', 'live'));`,
    );
    // A live payment's stored answer says which mode made it: carry live claims over as live.
    this.addSql(
      `update "idempotency_key" i set "mode" = p."mode" from "payment" p where p."id" = i."payment_id" and p."mode" <> i."mode";`,
    );
    this.addSql(`alter table "idempotency_key" alter column "mode" drop default;`);
    this.addSql(`alter table "idempotency_key" drop constraint "idempotency_key_pkey";`);
    this.addSql(
      `alter table "idempotency_key" add constraint "idempotency_key_pkey" primary key ("organization_id", "mode", "key");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "idempotency_key" where "mode" = 'live';`);
    this.addSql(`alter table "idempotency_key" drop constraint "idempotency_key_pkey";`);
    this.addSql(
      `alter table "idempotency_key" add constraint "idempotency_key_pkey" primary key ("organization_id", "key");`,
    );
    this.addSql(`alter table "idempotency_key" drop column "mode";`);
  }
}
