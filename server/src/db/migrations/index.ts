import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121115358_foundation } from './Migration20261121115358_foundation.ts';
import { Migration20261121115714_payments } from './Migration20261121115714_payments.ts';
import { Migration20261122221702_rate_limits } from './Migration20261122221702_rate_limits.ts';
import { Migration20261122221837_payment_counts } from './Migration20261122221837_payment_counts.ts';
import { Migration20261122221939_provider_and_idempotency_claims } from './Migration20261122221939_provider_and_idempotency_claims.ts';
import { Migration20261122222213_dashboard_accounts } from './Migration20261122222213_dashboard_accounts.ts';
import { Migration20261122223647_payment_day_summary } from './Migration20261122223647_payment_day_summary.ts';
import { Migration20261122230736_payment_notify } from './Migration20261122230736_payment_notify.ts';
import { Migration20261122232327_payment_counts_per_statement } from './Migration20261122232327_payment_counts_per_statement.ts';
import { Migration20261123012000_api_key_changed } from './Migration20261123012000_api_key_changed.ts';
import { Migration20261123020000_payment_day_volume } from './Migration20261123020000_payment_day_volume.ts';
import { Migration20261125134944_accounts_and_mail } from './Migration20261125134944_accounts_and_mail.ts';
import { Migration20261125140000_request_and_audit_logs } from './Migration20261125140000_request_and_audit_logs.ts';
import { Migration20261125143000_obie_provider } from './Migration20261125143000_obie_provider.ts';
import { Migration20261125150000_payment_search } from './Migration20261125150000_payment_search.ts';
import { Migration20261125170000_live_and_test_modes } from './Migration20261125170000_live_and_test_modes.ts';
import { Migration20261125170000_organization_budgets } from './Migration20261125170000_organization_budgets.ts';
import { Migration20261125170000_payment_notify_on_update } from './Migration20261125170000_payment_notify_on_update.ts';
import { Migration20261125171000_two_step } from './Migration20261125171000_two_step.ts';
import { Migration20261125172000_team_roles } from './Migration20261125172000_team_roles.ts';
import { Migration20261125172000_test_clocks } from './Migration20261125172000_test_clocks.ts';
import { Migration20261125173000_history_actor } from './Migration20261125173000_history_actor.ts';
import { Migration20261125174000_payment_day_outcome } from './Migration20261125174000_payment_day_outcome.ts';
import { Migration20261125180000_dashboard_mode_and_test_volumes } from './Migration20261125180000_dashboard_mode_and_test_volumes.ts';
import { Migration20261125183000_waiting_read_count } from './Migration20261125183000_waiting_read_count.ts';
import { Migration20261125184000_audit_log_grants } from './Migration20261125184000_audit_log_grants.ts';
import { Migration20261125200000_obie_authorization_requests } from './Migration20261125200000_obie_authorization_requests.ts';
import { Migration20261125203000_payment_list_by_mode } from './Migration20261125203000_payment_list_by_mode.ts';
import { Migration20261127150000_insert_counts_per_row } from './Migration20261127150000_insert_counts_per_row.ts';
import { Migration20261128090000_idempotency_per_mode } from './Migration20261128090000_idempotency_per_mode.ts';
import { Migration20261128091000_request_log_day } from './Migration20261128091000_request_log_day.ts';
import { Migration20261128092000_team_changes_ask_again } from './Migration20261128092000_team_changes_ask_again.ts';
import { Migration20261128093000_obie_notifications_seen } from './Migration20261128093000_obie_notifications_seen.ts';
import { Migration20261128094000_hot_table_analyze } from './Migration20261128094000_hot_table_analyze.ts';
import { Migration20261128100000_bulk_counts_per_statement } from './Migration20261128100000_bulk_counts_per_statement.ts';
import { Migration20261128110000_organization_brand } from './Migration20261128110000_organization_brand.ts';
import { Migration20261128120000_saved_payees } from './Migration20261128120000_saved_payees.ts';
import { Migration20261128121000_payment_amount_search } from './Migration20261128121000_payment_amount_search.ts';
import { Migration20261128130000_provider_status } from './Migration20261128130000_provider_status.ts';
import { Migration20261128140000_nextgenpsd2_payment } from './Migration20261128140000_nextgenpsd2_payment.ts';
import { Migration20261128150000_return_origins_on_the_key } from './Migration20261128150000_return_origins_on_the_key.ts';
import { Migration20261129090000_payment_answer } from './Migration20261129090000_payment_answer.ts';
import { Migration20261129120000_payment_value_domains } from './Migration20261129120000_payment_value_domains.ts';

/**
 * Committed migrations, applied in this order on start. A new migration is one import and one
 * entry here (`npm run -w @pis/server migration:create -- <name>` writes the file and prints both lines).
 */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121115358_foundation', class: Migration20261121115358_foundation },
  { name: 'Migration20261121115714_payments', class: Migration20261121115714_payments },
  { name: 'Migration20261122221702_rate_limits', class: Migration20261122221702_rate_limits },
  { name: 'Migration20261122221837_payment_counts', class: Migration20261122221837_payment_counts },
  {
    name: 'Migration20261122221939_provider_and_idempotency_claims',
    class: Migration20261122221939_provider_and_idempotency_claims,
  },
  { name: 'Migration20261122222213_dashboard_accounts', class: Migration20261122222213_dashboard_accounts },
  { name: 'Migration20261122223647_payment_day_summary', class: Migration20261122223647_payment_day_summary },
  { name: 'Migration20261122230736_payment_notify', class: Migration20261122230736_payment_notify },
  {
    name: 'Migration20261122232327_payment_counts_per_statement',
    class: Migration20261122232327_payment_counts_per_statement,
  },
  { name: 'Migration20261123012000_api_key_changed', class: Migration20261123012000_api_key_changed },
  { name: 'Migration20261123020000_payment_day_volume', class: Migration20261123020000_payment_day_volume },
  { name: 'Migration20261125134944_accounts_and_mail', class: Migration20261125134944_accounts_and_mail },
  {
    name: 'Migration20261125140000_request_and_audit_logs',
    class: Migration20261125140000_request_and_audit_logs,
  },
  { name: 'Migration20261125143000_obie_provider', class: Migration20261125143000_obie_provider },
  { name: 'Migration20261125150000_payment_search', class: Migration20261125150000_payment_search },
  { name: 'Migration20261125170000_live_and_test_modes', class: Migration20261125170000_live_and_test_modes },
  {
    name: 'Migration20261125170000_organization_budgets',
    class: Migration20261125170000_organization_budgets,
  },
  {
    name: 'Migration20261125170000_payment_notify_on_update',
    class: Migration20261125170000_payment_notify_on_update,
  },
  { name: 'Migration20261125171000_two_step', class: Migration20261125171000_two_step },
  { name: 'Migration20261125172000_team_roles', class: Migration20261125172000_team_roles },
  { name: 'Migration20261125172000_test_clocks', class: Migration20261125172000_test_clocks },
  { name: 'Migration20261125173000_history_actor', class: Migration20261125173000_history_actor },
  { name: 'Migration20261125174000_payment_day_outcome', class: Migration20261125174000_payment_day_outcome },
  {
    name: 'Migration20261125180000_dashboard_mode_and_test_volumes',
    class: Migration20261125180000_dashboard_mode_and_test_volumes,
  },
  { name: 'Migration20261125183000_waiting_read_count', class: Migration20261125183000_waiting_read_count },
  { name: 'Migration20261125184000_audit_log_grants', class: Migration20261125184000_audit_log_grants },
  {
    name: 'Migration20261125200000_obie_authorization_requests',
    class: Migration20261125200000_obie_authorization_requests,
  },
  {
    name: 'Migration20261125203000_payment_list_by_mode',
    class: Migration20261125203000_payment_list_by_mode,
  },
  {
    name: 'Migration20261127150000_insert_counts_per_row',
    class: Migration20261127150000_insert_counts_per_row,
  },
  {
    name: 'Migration20261128090000_idempotency_per_mode',
    class: Migration20261128090000_idempotency_per_mode,
  },
  { name: 'Migration20261128091000_request_log_day', class: Migration20261128091000_request_log_day },
  {
    name: 'Migration20261128092000_team_changes_ask_again',
    class: Migration20261128092000_team_changes_ask_again,
  },
  {
    name: 'Migration20261128093000_obie_notifications_seen',
    class: Migration20261128093000_obie_notifications_seen,
  },
  { name: 'Migration20261128094000_hot_table_analyze', class: Migration20261128094000_hot_table_analyze },
  {
    name: 'Migration20261128100000_bulk_counts_per_statement',
    class: Migration20261128100000_bulk_counts_per_statement,
  },
  { name: 'Migration20261128110000_organization_brand', class: Migration20261128110000_organization_brand },
  { name: 'Migration20261128120000_saved_payees', class: Migration20261128120000_saved_payees },
  {
    name: 'Migration20261128121000_payment_amount_search',
    class: Migration20261128121000_payment_amount_search,
  },
  { name: 'Migration20261128130000_provider_status', class: Migration20261128130000_provider_status },
  {
    name: 'Migration20261128140000_nextgenpsd2_payment',
    class: Migration20261128140000_nextgenpsd2_payment,
  },
  {
    name: 'Migration20261128150000_return_origins_on_the_key',
    class: Migration20261128150000_return_origins_on_the_key,
  },
  { name: 'Migration20261129090000_payment_answer', class: Migration20261129090000_payment_answer },
  {
    name: 'Migration20261129120000_payment_value_domains',
    class: Migration20261129120000_payment_value_domains,
  },
];
