import { Migration } from '@mikro-orm/migrations';

export class Migration20261122221702_rate_limits extends Migration {
  override name = 'Migration20261122221702_rate_limits';

  override up(): void | Promise<void> {
    // Unlogged: counters are worth no WAL (after a database crash they start again at 0, which
    // only forgives a window). Fillfactor leaves room on each page so the per-hit update of
    // `hits` stays a HOT update (no index write).
    this.addSql(
      `create unlogged table "rate_limit_window" ("key" varchar(200) not null, "window_start" timestamptz not null, "resets_at" timestamptz not null, "hits" int not null, primary key ("key")) with (fillfactor = 70);`,
    );
    this.addSql(`create index "rate_limit_window_resets_at_idx" on "rate_limit_window" ("resets_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "rate_limit_window" cascade;`);
  }
}
