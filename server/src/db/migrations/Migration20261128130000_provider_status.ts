import { Migration } from '@mikro-orm/migrations';

/**
 * Provider facts become neutral (issue 33): one `provider_status` (jsonb, by the provider's own
 * names) in place of obie's `consent_status` and `bank_status`. Today's obie payments carry over
 * as `{consent, payment}`. The old columns stay for one release, unwritten: during a rolling
 * deploy the previous build still selects them; a later release drops them.
 */
export class Migration20261128130000_provider_status extends Migration {
  override name = 'Migration20261128130000_provider_status';

  override up(): void | Promise<void> {
    this.addSql(`alter table "payment" add column "provider_status" jsonb null;`);
    this.addSql(
      `update "payment" set "provider_status" = jsonb_strip_nulls(jsonb_build_object('consent', "consent_status", 'payment', "bank_status"))
        where "consent_status" is not null or "bank_status" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(
      `update "payment" set "consent_status" = "provider_status"->>'consent', "bank_status" = "provider_status"->>'payment'
        where "provider_status" is not null;`,
    );
    this.addSql(`alter table "payment" drop column "provider_status";`);
  }
}
