import type { DemoOrganization } from './demo-organization.ts';
import { DEMO_USER_EMAIL } from './demo-organization.ts';

export interface StartBannerInput {
  publicBaseUrl: string;
  seconds: string;
  listening: string;
  /** Where people read the mail the service sends (MailDev's inbox), or why there is none here. */
  mailInbox: string;
  /** The demo organization made by this start (its secrets shown this once), if any. */
  demo: DemoOrganization | undefined;
  /** Whether this is the embedded database, whose first start made the demo user. */
  embedded: boolean;
}

/**
 * The last thing `npm start` prints: where everything is and how to sign in, in one box, so a
 * newcomer finds it at the bottom of the terminal rather than among log lines (issue 23 item 1).
 * Written to stdout by main.ts, never through the logger: the first start's secrets must not
 * reach the structured log stream.
 */
export function startBanner(input: StartBannerInput): string {
  const url = input.publicBaseUrl;
  const rows: string[] = [
    `Payment Initiation Service ready in ${input.seconds} s (listening on ${input.listening})`,
    '',
    `  open        ${url}/   (the dashboard, or its sign-in)`,
    `  dashboard   ${url}/dashboard`,
    `  API docs    ${url}/docs`,
    `  REST API    ${url}/api   (OpenAPI: /api/openapi.json)`,
    `  mail inbox  ${input.mailInbox}`,
    '',
  ];
  if (input.demo) {
    rows.push(
      'Demo organization, shown only this once:',
      `  email       ${input.demo.user.email}`,
      `  password    ${input.demo.user.password}`,
      `  API key     ${input.demo.apiKey}`,
    );
  } else if (input.embedded) {
    rows.push(
      `Demo user    ${DEMO_USER_EMAIL} (its password was printed at the first start)`,
      `             or sign up at ${url}/dashboard/sign-up`,
    );
  } else {
    rows.push(`Sign up at ${url}/dashboard/sign-up, or add users with: npm run -s admin -- user:create`);
  }
  const width = Math.max(...rows.map((row) => row.length));
  return [
    `┌${'─'.repeat(width + 2)}┐`,
    ...rows.map((row) => `│ ${row.padEnd(width)} │`),
    `└${'─'.repeat(width + 2)}┘`,
  ].join('\n');
}
