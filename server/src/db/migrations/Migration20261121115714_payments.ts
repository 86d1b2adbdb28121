import { Migration } from '@mikro-orm/migrations';

export class Migration20261121115714_payments extends Migration {
  override name = 'Migration20261121115714_payments';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "payment" ("id" text not null, "organization_id" varchar(40) not null, "status" text not null, "iso_code" text not null, "iso_reason" text null, "provider" varchar(50) not null, "bank_id" varchar(100) null, "amount_value" numeric not null, "currency" varchar(3) not null, "from_account" jsonb null, "to_account" jsonb not null, "reference" varchar(140) not null, "end_to_end_id" varchar(35) not null, "flow_type" text not null, "return_url" text null, "mock_bank" jsonb null, "approved_at" timestamptz null, "timing" jsonb null, "error_code" varchar(50) null, "error_message" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "expires_at" timestamptz not null, "completed_at" timestamptz null, "next_due_at" timestamptz null, "version" int not null default 1, primary key ("id"));`,
    );
    this.addSql(
      `create index "payment_org_created_idx" on "payment" ("organization_id", "created_at", "id");`,
    );
    this.addSql(
      `create index "payment_org_status_created_idx" on "payment" ("organization_id", "status", "created_at", "id");`,
    );
    this.addSql(
      `create index "payment_org_provider_created_idx" on "payment" ("organization_id", "provider", "created_at", "id");`,
    );
    this.addSql(
      `create index "payment_next_due_idx" on "payment" ("next_due_at") where next_due_at is not null;`,
    );
    this.addSql(
      `create index "payment_org_next_due_idx" on "payment" ("organization_id", "next_due_at") where next_due_at is not null;`,
    );

    this.addSql(
      `create table "idempotency_key" ("organization_id" varchar(40) not null, "key" varchar(255) not null, "request_hash" varchar(64) not null, "payment_id" text not null, "response" jsonb not null, "created_at" timestamptz not null, primary key ("organization_id", "key"));`,
    );
    this.addSql(`create index "idempotency_key_created_at_idx" on "idempotency_key" ("created_at");`);

    this.addSql(
      `create table "payment_history" ("payment_id" text not null, "seq" int not null, "status" text not null, "iso_code" text not null, "iso_reason" text null, "provider" varchar(50) null, "details" text null, "timestamp" timestamptz not null, primary key ("payment_id", "seq"));`,
    );

    this.addSql(
      `alter table "payment" add constraint "payment_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "payment" add constraint "payment_amount_value_check" check (amount_value > 0);`,
    );
    this.addSql(
      `alter table "payment" add constraint "payment_status_check" check ("status" in ('PENDING', 'AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'));`,
    );
    this.addSql(
      `alter table "payment" add constraint "payment_iso_code_check" check ("iso_code" in ('RCVD', 'PDNG', 'ACTC', 'ACCP', 'ACSP', 'ACSC', 'RJCT', 'CANC'));`,
    );
    this.addSql(
      `alter table "payment" add constraint "payment_iso_reason_check" check ("iso_reason" in ('AM04', 'AC04', 'CUST', 'NOAS', 'NARR'));`,
    );
    this.addSql(
      `alter table "payment" add constraint "payment_flow_type_check" check ("flow_type" in ('API_ONLY', 'HOSTED_PAGES', 'EMBEDDED_HOSTED_PAGES'));`,
    );

    this.addSql(
      `alter table "idempotency_key" add constraint "idempotency_key_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "idempotency_key" add constraint "idempotency_key_payment_id_foreign" foreign key ("payment_id") references "payment" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "payment_history" add constraint "payment_history_payment_id_foreign" foreign key ("payment_id") references "payment" ("id") on delete cascade;`,
    );
    this.addSql(
      `alter table "payment_history" add constraint "payment_history_status_check" check ("status" in ('PENDING', 'AUTHORIZING', 'AUTHORIZED', 'SUBMITTED', 'ACCEPTED', 'COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'));`,
    );
    this.addSql(
      `alter table "payment_history" add constraint "payment_history_iso_code_check" check ("iso_code" in ('RCVD', 'PDNG', 'ACTC', 'ACCP', 'ACSP', 'ACSC', 'RJCT', 'CANC'));`,
    );
    this.addSql(
      `alter table "payment_history" add constraint "payment_history_iso_reason_check" check ("iso_reason" in ('AM04', 'AC04', 'CUST', 'NOAS', 'NARR'));`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "idempotency_key" drop constraint "idempotency_key_payment_id_foreign";`);
    this.addSql(`alter table "payment_history" drop constraint "payment_history_payment_id_foreign";`);

    this.addSql(`drop table if exists "payment" cascade;`);
    this.addSql(`drop table if exists "idempotency_key" cascade;`);
    this.addSql(`drop table if exists "payment_history" cascade;`);
  }
}
