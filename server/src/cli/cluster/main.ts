import path from 'node:path';
import { backup, down, restore, startNode, statusOf, switchover, up } from './cluster.ts';
import { ClusterError } from './processes.ts';

/**
 * `npm run -s cluster -- <command> DIR ...` from the repository root: a PostgreSQL 15 cluster
 * (etcd, three nodes under Patroni, HAProxy to the leader, pgBackRest) and two service instances
 * behind HAProxy, all on loopback with every file under DIR. stdout carries one JSON object;
 * progress goes to stderr, the processes' logs to DIR/log. How and why: README ("Running it for
 * real: a cluster"), docs/operations.md and docs/decisions/080-database-cluster.md.
 */
const USAGE = `usage: npm run -s cluster -- <command>
  up DIR [--port P]                 start everything under DIR (front door on P, else a free port)
  status DIR                        the same JSON as up, as things stand now
  down DIR                          stop everything started under DIR (a cluster or a restore)
  switchover DIR                    move the leader to the synchronous standby
  backup DIR                        a full pgBackRest backup: {"backup": label, "at": RFC 3339}
  restore DIR --to T --into DIR2    the data as at instant T in a new single node under DIR2
  start-node DIR NAME               start a stopped node's Patroni again (it rejoins as a standby), or etcd`;

const say = (line: string) => process.stderr.write(`${line}\n`);
const quiet = process.env.CLUSTER_QUIET === '1';
const log = (line: string) => {
  if (!quiet) say(`cluster: ${line}`);
};

/** DIR as the caller meant it: npm runs scripts from the repository root, INIT_CWD is where it was typed. */
const resolveDir = (dir: string | undefined) => {
  if (!dir) throw new UsageError('DIR is missing');
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), dir);
};

class UsageError extends Error {}

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at === -1) return undefined;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new UsageError(`${name} needs a value`);
  return value;
}

async function main(argv: string[]): Promise<unknown> {
  const [command, dirArg, ...rest] = argv;
  switch (command) {
    case 'up': {
      const port = option(rest, '--port');
      if (port !== undefined && !/^\d{1,5}$/.test(port)) throw new UsageError(`--port ${port}: not a port`);
      return up(resolveDir(dirArg), { port: port === undefined ? undefined : Number(port) }, log);
    }
    case 'status':
      return statusOf(resolveDir(dirArg));
    case 'down':
      return down(resolveDir(dirArg), log);
    case 'switchover':
      return switchover(resolveDir(dirArg), log);
    case 'backup':
      return backup(resolveDir(dirArg), log);
    case 'restore': {
      const to = option(rest, '--to');
      const into = option(rest, '--into');
      if (!to || !into) throw new UsageError('restore needs --to <RFC 3339> and --into DIR2');
      return restore(resolveDir(dirArg), to, resolveDir(into), log);
    }
    case 'start-node': {
      const [name] = rest;
      if (!name) throw new UsageError('start-node needs a node name (pg1, pg2, pg3)');
      return startNode(resolveDir(dirArg), name);
    }
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command');
  }
}

try {
  const result = await main(process.argv.slice(2));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Open handles (a pool's timers) must not keep the CLI waiting.
  process.exit(0);
} catch (error) {
  if (error instanceof UsageError) {
    say(`error: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  say(
    `error: ${error instanceof ClusterError ? error.message : error instanceof Error ? error.message : String(error)}`,
  );
  if (!(error instanceof ClusterError) && error instanceof Error && process.env.CLUSTER_DEBUG)
    say(String(error.stack));
  process.exit(1);
}
