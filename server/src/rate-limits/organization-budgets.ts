import type { RateLimitConfig } from '../config.ts';

/**
 * An organization's own budget settings (columns of `organization`), as the key lookup and the
 * session read them. Every budget that protects shared capacity counts per organization, across
 * its keys, sessions and instances (docs/decisions/044-organization-budgets.md).
 */
export interface BudgetSettings {
  /** Self-serve sign-up, not yet raised by an operator: a tenth of each default API budget. */
  reduced: boolean;
  /** The operator's numbers (`org:set-limits`); null: the default (or its tenth). */
  apiReads: number | null;
  apiWrites: number | null;
  waits: number | null;
}

/** What an organization made by an operator (or before budgets per organization) has. */
export const DEFAULT_BUDGETS: BudgetSettings = {
  reduced: false,
  apiReads: null,
  apiWrites: null,
  waits: null,
};

/** The budgets an organization's settings can change: API requests and waiting reads, not the dashboard's. */
export type OrganizationBudget = 'api-read' | 'api-write' | 'waits';

/** A reduced organization gets this share of each default (at least 1). */
export const REDUCED_SHARE = 10;

const DEFAULT_OF: Record<OrganizationBudget, (config: RateLimitConfig) => number> = {
  'api-read': (config) => config.apiReads,
  'api-write': (config) => config.apiWrites,
  waits: (config) => config.waitsPerOrganization,
};

const OWN_OF: Record<OrganizationBudget, (settings: BudgetSettings) => number | null> = {
  'api-read': (settings) => settings.apiReads,
  'api-write': (settings) => settings.apiWrites,
  waits: (settings) => settings.waits,
};

/** The organization's limit for `budget`: its operator-set number, else the default (a tenth when reduced). */
export function budgetOf(
  config: RateLimitConfig,
  settings: BudgetSettings,
  budget: OrganizationBudget,
): number {
  const own = OWN_OF[budget](settings);
  if (own !== null) return own;
  const fallback = DEFAULT_OF[budget](config);
  return settings.reduced ? Math.max(1, Math.floor(fallback / REDUCED_SHARE)) : fallback;
}

/** The settings from the organization's row (snake_case, as the key lookup's SQL returns it). */
export const budgetSettingsOfRow = (row: {
  reduced_budgets: boolean;
  budget_api_reads: number | null;
  budget_api_writes: number | null;
  budget_waits: number | null;
}): BudgetSettings => ({
  reduced: row.reduced_budgets,
  apiReads: row.budget_api_reads,
  apiWrites: row.budget_api_writes,
  waits: row.budget_waits,
});

/** The settings from the organization entity. */
export const budgetSettingsOf = (organization: {
  reducedBudgets: boolean;
  budgetApiReads?: number | null | undefined;
  budgetApiWrites?: number | null | undefined;
  budgetWaits?: number | null | undefined;
}): BudgetSettings => ({
  reduced: organization.reducedBudgets,
  apiReads: organization.budgetApiReads ?? null,
  apiWrites: organization.budgetApiWrites ?? null,
  waits: organization.budgetWaits ?? null,
});
