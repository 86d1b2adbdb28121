import { Migration } from '@mikro-orm/migrations';

/**
 * Finding a payment at a million (issue 23, docs/decisions/055-find-and-export.md):
 * - an end-to-end id exactly: a btree on (organization_id, end_to_end_id); a payment id is the key;
 * - part of a reference or payee name, ignoring case: trigram GIN indexes (pg_trgm answers
 *   `ilike '%…%'` from them), led by organization_id (btree_gin) so one merchant's search only
 *   walks its own postings. Both extensions ship with Postgres and are trusted (a database owner
 *   may create them).
 */
export class Migration20261125150000_payment_search extends Migration {
  override name = 'Migration20261125150000_payment_search';

  override up(): void | Promise<void> {
    this.addSql(`create extension if not exists pg_trgm;`);
    this.addSql(`create extension if not exists btree_gin;`);
    this.addSql(
      `create index "payment_org_end_to_end_idx" on "payment" ("organization_id", "end_to_end_id") where end_to_end_id is not null;`,
    );
    this.addSql(
      `create index "payment_org_reference_trgm_idx" on "payment" using gin ("organization_id", "reference" gin_trgm_ops);`,
    );
    this.addSql(
      `create index "payment_org_payee_trgm_idx" on "payment" using gin ("organization_id", ("to_account" ->> 'accountName') gin_trgm_ops);`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "payment_org_payee_trgm_idx";`);
    this.addSql(`drop index if exists "payment_org_reference_trgm_idx";`);
    this.addSql(`drop index if exists "payment_org_end_to_end_idx";`);
  }
}
