import { Migration } from '@mikro-orm/migrations';

/**
 * Each organization's request-log entries a UTC day (issue 31 item 1), raised by the request
 * log's batch statement itself, which keeps only the entries within the organization's ceiling
 * (observability/request-log.ts). The count goes on past the ceiling: it says how many were not
 * kept. Purged with the log (a day after its entries).
 */
export class Migration20261128091000_request_log_day extends Migration {
  override name = 'Migration20261128091000_request_log_day';

  override up(): void | Promise<void> {
    this.addSql(`
      create table "request_log_day" (
        "organization_id" varchar(40) not null,
        "day" date not null,
        "entries" bigint not null,
        primary key ("organization_id", "day")
      );`);
  }

  override down(): void | Promise<void> {
    this.addSql('drop table if exists "request_log_day";');
  }
}
