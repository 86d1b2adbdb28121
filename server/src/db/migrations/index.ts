import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121115358_foundation } from './Migration20261121115358_foundation.ts';
import { Migration20261121115714_payments } from './Migration20261121115714_payments.ts';
import { Migration20261122221837_payment_counts } from './Migration20261122221837_payment_counts.ts';

/**
 * Committed migrations, applied in this order on start. A new migration is one import and one
 * entry here (`npm run -w @pis/server migration:create -- <name>` writes the file and prints both lines).
 */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121115358_foundation', class: Migration20261121115358_foundation },
  { name: 'Migration20261121115714_payments', class: Migration20261121115714_payments },
  { name: 'Migration20261122221837_payment_counts', class: Migration20261122221837_payment_counts },
];
