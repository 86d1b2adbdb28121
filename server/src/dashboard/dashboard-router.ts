import { logsRouter } from '../observability/logs.procedures.ts';
import { router } from '../trpc/trpc.ts';
import { accountRouter } from './account.procedures.ts';
import { apiKeysRouter } from './api-keys.procedures.ts';
import { overviewProcedure, quickStartProcedure } from './overview.procedures.ts';
import { paymentsRouter } from './payments.procedures.ts';
import { settingsRouter } from './settings.procedures.ts';
import { teamRouter } from './team.procedures.ts';

/**
 * The merchant dashboard's procedures, served at /trpc only (none has `meta.openapi`):
 * session-authenticated, scoped to the user's organization, calling the same domain functions
 * as the REST API. The contract is in shared/src/dashboard.ts.
 */
export const dashboardRouter = router({
  account: accountRouter,
  apiKeys: apiKeysRouter,
  payments: paymentsRouter,
  overview: overviewProcedure,
  quickStart: quickStartProcedure,
  settings: settingsRouter,
  logs: logsRouter,
  team: teamRouter,
});
