import { Migration } from '@mikro-orm/migrations';

/**
 * The `nextgenpsd2` provider's own facts per payment (Berlin Group NextGenPSD2, issue 33): the
 * bank it was made at, the bank's payment id and product, the bank's SCA page (`scaRedirect`),
 * the random `state` our return address carries (unique: the callback finds its payment by it)
 * and when the customer came back (`callback_at`, taken once). Written before the bank is called
 * (bank id and page null until it answers), read and written with plain SQL (no entity).
 */
export class Migration20261128140000_nextgenpsd2_payment extends Migration {
  override name = 'Migration20261128140000_nextgenpsd2_payment';

  override up(): void | Promise<void> {
    this.addSql(`
      create table "nextgenpsd2_payment" (
        "payment_id" varchar(40) not null,
        "bank_id" varchar(100) not null,
        "product" varchar(50) not null,
        "bank_payment_id" varchar(100) null,
        "sca_redirect" varchar(2000) null,
        "state" varchar(64) not null,
        "callback_at" timestamptz null,
        "created_at" timestamptz not null,
        constraint "nextgenpsd2_payment_pkey" primary key ("payment_id")
      );`);
    this.addSql(
      `alter table "nextgenpsd2_payment" add constraint "nextgenpsd2_payment_state_unique" unique ("state");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "nextgenpsd2_payment";');
  }
}
