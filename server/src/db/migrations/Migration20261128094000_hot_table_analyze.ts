import { Migration } from '@mikro-orm/migrations';

/**
 * Reads that never degrade (issue 32 item 3; db/table-statistics.ts): autovacuum analyzes the hot
 * tables after 2% of their rows changed (Postgres's default, 10%, let a table grow tenfold in a
 * burst before its cached plans were re-made). The workers' own check analyzes sooner; this is
 * the floor where the service's role may not analyze (it owns no table: docker/postgres).
 */
const HOT = ['payment', 'payment_history', 'api_key', 'idempotency_key', 'provider_claim', 'request_log'];

export class Migration20261128094000_hot_table_analyze extends Migration {
  override name = 'Migration20261128094000_hot_table_analyze';

  override up(): void | Promise<void> {
    for (const table of HOT) {
      this.addSql(
        `alter table "${table}" set (autovacuum_analyze_scale_factor = 0.02, autovacuum_analyze_threshold = 200);`,
      );
    }
  }

  override down(): void | Promise<void> {
    for (const table of HOT) {
      this.addSql(
        `alter table "${table}" reset (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold);`,
      );
    }
  }
}
