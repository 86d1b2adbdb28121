import { Migration } from '@mikro-orm/migrations';

export class Migration20261122221939_provider_and_idempotency_claims extends Migration {
  override name = 'Migration20261122221939_provider_and_idempotency_claims';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "provider_claim" ("payment_id" text not null, "claim_id" varchar(40) not null, "action" text not null, "bank_id" varchar(100) null, "claimed_at" timestamptz not null, primary key ("payment_id"));`,
    );

    this.addSql(`alter table "organization" add "allowed_return_origins" jsonb null;`);

    this.addSql(`alter table "idempotency_key" add "claim_token" varchar(40) null;`);
    this.addSql(`alter table "idempotency_key" alter column "payment_id" drop not null;`);
    this.addSql(`alter table "idempotency_key" alter column "response" drop not null;`);

    this.addSql(
      `alter table "provider_claim" add constraint "provider_claim_payment_id_foreign" foreign key ("payment_id") references "payment" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "provider_claim" add constraint "provider_claim_action_check" check ("action" in ('start', 'cancel'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "provider_claim" cascade;`);

    this.addSql(`alter table "idempotency_key" drop column "claim_token";`);
    this.addSql(`alter table "idempotency_key" alter column "payment_id" set not null;`);
    this.addSql(`alter table "idempotency_key" alter column "response" set not null;`);

    this.addSql(`alter table "organization" drop column "allowed_return_origins";`);
  }
}
