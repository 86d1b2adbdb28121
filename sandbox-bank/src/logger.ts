import { pino } from 'pino';
import type { LogLevel } from './config.ts';

export type Logger = pino.Logger;

/** Bearer tokens, client assertions and codes never reach a log line. */
const REDACT = ['req.headers.authorization', 'headers.authorization', '*.client_assertion', '*.code'];

export function createLogger(level: LogLevel): Logger {
  return pino({ level, name: 'sandbox-bank', redact: { paths: REDACT, censor: '[redacted]' } });
}

export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
