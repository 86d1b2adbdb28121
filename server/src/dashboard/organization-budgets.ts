import type { OrganizationBudgets } from '@pis/shared';
import type { RateLimitConfig } from '../config.ts';
import type { EntityManager } from '../db/orm.ts';
import { type BudgetSettings, budgetOf } from '../rate-limits/organization-budgets.ts';
import { peekRateLimit } from '../rate-limits/rate-limit-store.ts';
import { rateLimitKey, rateLimitOf } from '../rate-limits/rate-limits.ts';

/**
 * The organization's budgets as the service applies them (issue 34 item 12): each limit from the
 * same functions the counting uses (budgetOf: the operator's number, else the default, a tenth for
 * a self-serve sign-up), and how much of the current window its keys and sessions used. Reading
 * counts nothing (this call's own dashboard request is already counted).
 */
export async function organizationBudgets(
  em: EntityManager,
  config: RateLimitConfig,
  organizationId: string,
  settings: BudgetSettings,
): Promise<OrganizationBudgets> {
  const limits = [
    { budget: 'api-read', limit: budgetOf(config, settings, 'api-read') },
    { budget: 'api-write', limit: budgetOf(config, settings, 'api-write') },
    { budget: 'dashboard', limit: rateLimitOf(config, 'dashboard') },
  ] as const;
  const budgets = await Promise.all(
    limits.map(async ({ budget, limit }) => ({
      budget,
      limit,
      ...(config.enabled
        ? await peekRateLimit(em, rateLimitKey(budget, organizationId), config.windowSeconds)
        : { used: 0, resetSeconds: config.windowSeconds }),
    })),
  );
  return {
    enabled: config.enabled,
    windowSeconds: config.windowSeconds,
    reduced: settings.reduced && settings.apiReads === null && settings.apiWrites === null,
    budgets,
    waitsAtOnce: budgetOf(config, settings, 'waits'),
  };
}
