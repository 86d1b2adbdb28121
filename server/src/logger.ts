import { pino } from 'pino';
import type { LogLevel } from './config.ts';

export type Logger = pino.Logger;

/**
 * API keys must never reach a log line: Fastify's request serializer does not log headers, and
 * the redaction below covers anyone who logs a request or its headers by hand.
 */
const REDACT = [
  'req.headers["x-api-key"]',
  'request.headers["x-api-key"]',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
  'linkSigningSecret',
  '*.linkSigningSecret',
];

const REDACTED = '[redacted]';
/**
 * Customer pages: the link token is the whole credential of a payment's page. In any case (the
 * SPA's router ignores it) and after any number of slashes. `providers/<code>/authorize`: a real
 * provider's customer link, which sends the customer on to the bank.
 */
const TOKEN_IN_PATH = /^(\/+)(pay|mock-bank|providers\/+[^/?#]+\/+authorize)\/[^/?#]+/i;
/**
 * A key pasted into a URL by mistake (`?x-api-key=`, `?api_key=`, `?apiKey=`), and what a bank
 * sends back through the customer's browser: the JARM `response` and a plain `code` carry the
 * authorization code (with the PKCE verifier we hold, it becomes an access token to the payment);
 * a `state` names the customer's return at the bank (nextgenpsd2's is its whole credential).
 */
const KEY_PARAMETER = /^((x[-_]?)?api[-_]?key|response|code|state|id_token|access_token|refresh_token)$/i;
/** `"token":"..."` inside a tRPC query's JSON input (the pages' procedures). */
const TOKEN_IN_JSON = /("token"\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/**
 * A request URL fit for a log line: link tokens in customer page paths and in tRPC inputs, and
 * API keys in the query, replaced by `[redacted]`. Query values are decoded to be searched, and
 * a value that cannot be decoded is dropped whole rather than logged unread.
 */
export function redactedUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  let redactedPath = path.replace(
    TOKEN_IN_PATH,
    (_match, slashes: string, page: string) => `${slashes}${page}/${REDACTED}`,
  );
  // The router decodes percent-escapes before matching: `/providers/obie/%61uthorize/<token>`
  // opens the link too. A path that is a customer page only once decoded loses all after the page.
  const decodedPath = redactedPath === path ? decodePathOrUndefined(path) : undefined;
  const page = decodedPath === undefined ? null : TOKEN_IN_PATH.exec(decodedPath);
  if (page) redactedPath = `${page[1]}${page[2]}/${REDACTED}`;
  if (queryStart === -1) return redactedPath;
  const parameters = url
    .slice(queryStart + 1)
    .split('&')
    .map((pair) => {
      const [name = '', value] = pair.split(/=(.*)/s);
      const decoded = decodeOrUndefined(value ?? '');
      if (KEY_PARAMETER.test(decodeOrUndefined(name) ?? name)) return `${name}=${REDACTED}`;
      if (decoded === undefined) return `${name}=${REDACTED}`;
      if (!/token/i.test(decoded)) return pair;
      return `${name}=${encodeURIComponent(decoded.replace(TOKEN_IN_JSON, `$1"${REDACTED}"`))}`;
    });
  return `${redactedPath}?${parameters.join('&')}`;
}

const decodePathOrUndefined = (path: string): string | undefined => {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
};

const decodeOrUndefined = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
};

/** Fastify's request serializer with the URL redacted (it also logs method, host and address). */
const requestSerializer = (request: {
  method?: string;
  url?: unknown;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}) => ({
  method: request.method,
  url: typeof request.url === 'string' ? redactedUrl(request.url) : undefined,
  host: request.host,
  remoteAddress: request.ip,
  remotePort: request.socket?.remotePort,
});

/** JSON lines to stdout for the server; `stderr` for the CLI, whose stdout carries its result. */
export function createLogger(
  level: LogLevel,
  destination: 'stdout' | 'stderr' | NodeJS.WritableStream = 'stdout',
): Logger {
  const stream =
    typeof destination === 'string'
      ? pino.destination({ dest: destination === 'stdout' ? 1 : 2, sync: true })
      : destination;
  return pino(
    { level, redact: { paths: REDACT, censor: REDACTED }, serializers: { req: requestSerializer } },
    stream,
  );
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
