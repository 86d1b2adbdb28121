import { Migration } from '@mikro-orm/migrations';

/**
 * GET /payments/{id}'s answer, made once per version of a payment (issue 32): the first read
 * after a change stores the JSON it answered and its ETag, the next reads of that version send
 * them as they are (payments/read-payment.ts). A table of its own, not columns of `payment`:
 * writing it fires none of the payment's triggers (kept counts, the change notification) and
 * rewrites no payment row or index. `version` and `format` say which payment version and which
 * build's answer it is; a read takes it only when both are current. Deleted with its payment;
 * fillfactor 70 so a new version's answer replaces the old one on its page (a HOT update).
 *
 * What makes `version` trustworthy: the service moves it on with every change it saves; a write
 * from elsewhere (an operator's SQL, a data fix) that leaves it as it was is moved on here, and
 * an edit or removal of a history row drops the payment's stored answer.
 */
export class Migration20261129090000_payment_answer extends Migration {
  override name = 'Migration20261129090000_payment_answer';

  override up(): void | Promise<void> {
    this.addSql(`create table "payment_answer" (
      "payment_id" text primary key references "payment" ("id") on delete cascade,
      "version" integer not null,
      "format" smallint not null,
      "answer" text not null,
      "etag" text not null
    ) with (fillfactor = 70);`);
    this.addSql(`create function payment_version_moved() returns trigger language plpgsql as $$
      begin
        new.version := old.version + 1;
        return new;
      end $$;`);
    // The service's own updates move the version themselves: the function is never called for them.
    this.addSql(`create trigger payment_version_moved before update on "payment"
      for each row when (new.version = old.version) execute function payment_version_moved();`);
    this.addSql(`create function payment_answer_dropped() returns trigger language plpgsql as $$
      begin
        delete from payment_answer where payment_id = old.payment_id;
        return null;
      end $$;`);
    this.addSql(`create trigger payment_history_changed after update or delete on "payment_history"
      for each row execute function payment_answer_dropped();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger payment_history_changed on "payment_history";`);
    this.addSql(`drop function payment_answer_dropped();`);
    this.addSql(`drop trigger payment_version_moved on "payment";`);
    this.addSql(`drop function payment_version_moved();`);
    this.addSql(`drop table "payment_answer";`);
  }
}
