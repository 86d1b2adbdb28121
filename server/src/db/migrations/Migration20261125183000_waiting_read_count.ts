import { Migration } from '@mikro-orm/migrations';

/**
 * Waiting reads per organization across instances (issue 24 item 6,
 * docs/decisions/044-organization-budgets.md): each process publishes its
 * own open waits per organization here about once a second and sums the other processes' rows
 * (payments/waiting-read-counts.ts). No foreign key to `organization`: a row is a process's
 * report, deleted with the process (or forgotten once its heartbeat is stale), and deleting an
 * organization must not wait on it. Unlogged: the counts are worthless after a crash of the
 * database (the processes republish within a second), so they are not worth a WAL write.
 */
export class Migration20261125183000_waiting_read_count extends Migration {
  override name = 'Migration20261125183000_waiting_read_count';

  override up(): void | Promise<void> {
    this.addSql(`create unlogged table "waiting_read_count" (
      "process_id" uuid not null,
      "organization_id" varchar(40) not null,
      "waiting" integer not null check ("waiting" > 0),
      "heartbeat_at" timestamptz not null default clock_timestamp(),
      primary key ("process_id", "organization_id"));`);
    this.addSql(
      `create index "waiting_read_count_heartbeat_at_index" on "waiting_read_count" ("heartbeat_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table "waiting_read_count";`);
  }
}
