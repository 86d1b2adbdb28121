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

/** JSON lines to stdout for the server; `stderr` for the CLI, whose stdout carries its result. */
export function createLogger(
  level: LogLevel,
  destination: 'stdout' | 'stderr' | NodeJS.WritableStream = 'stdout',
): Logger {
  const stream =
    typeof destination === 'string'
      ? pino.destination({ dest: destination === 'stdout' ? 1 : 2, sync: true })
      : destination;
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, stream);
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
