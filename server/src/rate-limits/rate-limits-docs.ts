import type { RateLimitConfig } from '../config.ts';
import { budgetOf, DEFAULT_BUDGETS, REDUCED_SHARE } from './organization-budgets.ts';

const SIGN_UP = { ...DEFAULT_BUDGETS, reduced: true };

/**
 * The API reference's "Rate limits" section (served in /api/openapi.json, read by /docs), written
 * from this service's configuration and the very functions the counting uses (budgetOf), so the
 * page says what the server applies and cannot drift from it (issue 34 item 12).
 */
export function rateLimitsDocs(config: RateLimitConfig): string {
  const headers =
    'A counted answer carries `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and ' +
    '`RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers). Over the budget: 429 `RATE_LIMITED` ' +
    'with `Retry-After` in seconds; wait that long and retry. A request whose key is not proven is not counted.';
  if (!config.enabled) {
    return ['## Rate limits', 'This service runs with rate limits switched off: nothing is counted.'].join(
      '\n\n',
    );
  }
  const window = config.windowSeconds;
  const per = window === 60 ? 'a minute' : `per ${window} seconds`;
  const full = {
    reads: budgetOf(config, DEFAULT_BUDGETS, 'api-read'),
    writes: budgetOf(config, DEFAULT_BUDGETS, 'api-write'),
    waits: budgetOf(config, DEFAULT_BUDGETS, 'waits'),
  };
  const signUp = {
    reads: budgetOf(config, SIGN_UP, 'api-read'),
    writes: budgetOf(config, SIGN_UP, 'api-write'),
    waits: budgetOf(config, SIGN_UP, 'waits'),
  };
  return [
    '## Rate limits',
    `Counted per organization, across all its API keys, reads (GET) and writes apart, over fixed ` +
      `windows of ${window} seconds shared by every instance of the service: ${full.reads} reads and ` +
      `${full.writes} writes ${per}, and at most ${full.waits} waiting reads (\`Prefer: wait\`) held at once. ` +
      'Payments made in the dashboard spend the same write budget.',
    `An organization made by signing up in the dashboard gets a tenth (1/${REDUCED_SHARE}) of each: ` +
      `${signUp.reads} reads and ${signUp.writes} writes ${per}, ${signUp.waits} waiting reads at once, ` +
      "until the service's operator raises them (the operator may also set an organization's own numbers). " +
      "The dashboard's API keys page shows your organization's budgets and how much of the current window is used.",
    headers,
  ].join('\n\n');
}
