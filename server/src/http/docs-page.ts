import { API_KEY_SCHEME } from './openapi-document.ts';

/**
 * The API reference at /docs (Scalar), set up for this service and for a machine with no
 * internet (issue 23 item 11): its script comes from this server, no web fonts, no telemetry,
 * no request proxy, no "Ask AI", MCP or developer-tools buttons. The `x-api-key` scheme is
 * preselected and left empty: the merchant pastes their own key, nothing secret is in the page.
 */
export const DOCS_CONFIGURATION = {
  url: '/api/openapi.json',
  title: 'Payment Initiation Service API',
  pageTitle: 'API reference · Payment Initiation Service',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  hideDarkModeToggle: false,
  // Test requests go straight from the browser to this same origin; Scalar's default would
  // route them through its hosted proxy.
  proxyUrl: '',
  authentication: { preferredSecurityScheme: API_KEY_SCHEME },
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
} as const;
