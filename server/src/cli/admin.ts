import { AppError } from '@pis/shared';
import { redactApiKeys } from '../auth/api-key-secret.ts';
import { systemClock } from '../clock.ts';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { createLogger } from '../logger.ts';
import { operatorAuditEntry, recordAudit } from '../observability/audit-log.ts';
import { prepareCommand, type Run, USAGE, UsageError } from './admin-commands.ts';

/**
 * Operator CLI: `npm run -s admin -- <command> ...` from the repo root. stdout carries exactly
 * one JSON line (scripts parse it); everything else goes to stderr. Works with the server
 * running (it reuses the embedded cluster) or not (it starts the cluster and stops it again).
 */
const EXIT_USAGE = 2;

/** Every message is cut of anything that could be an API key: an operator may paste one anywhere. */
const say = (text: string) => process.stderr.write(`${redactApiKeys(text)}\n`);

function fail(message: string, code: number): never {
  say(message);
  process.exit(code);
}

const argv = process.argv.slice(2);
if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

let run: Run;
try {
  run = prepareCommand(argv, systemClock);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  fail(`error: ${error.message}\n\n${USAGE}`, EXIT_USAGE);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  fail(error.message, EXIT_USAGE);
}

// stderr only, and quiet by default: the operator wants the JSON line.
const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, 'stderr');
let database: Database;
try {
  const { openDatabase } = await import('../db/database.ts');
  database = await openDatabase(config, logger);
} catch (error) {
  fail(`error: could not open the database: ${error instanceof Error ? error.message : String(error)}`, 1);
}

let exitCode = 0;
try {
  const actions = await import('./admin-actions.ts');
  const result = await run(actions, database.orm.em.fork(), config);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Who changed what, for the organization's audit log (observability/audit-log.ts).
  const audit = operatorAuditEntry(argv, result);
  if (audit) await recordAudit(database.orm.em.fork(), audit, logger);
} catch (error) {
  // Unknown organization or key: the operator's mistake, and nothing was written.
  if (error instanceof AppError && error.status < 500) {
    const details = (error.details ?? []).map((detail) => `\n  ${detail.field}: ${detail.message}`).join('');
    say(`error: ${error.message}${details}`);
    exitCode = EXIT_USAGE;
  } else {
    say(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    exitCode = 1;
  }
} finally {
  await database.close();
}
process.exit(exitCode);
