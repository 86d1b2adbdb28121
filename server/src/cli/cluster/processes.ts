import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Every process the cluster tool starts carries `PIS_CLUSTER_DIR=<DIR>` in its environment, and
 * what they start inherits it (Patroni -> postgres -> archive-push). `down` finds what runs under
 * a DIR by that mark in /proc, so nothing is left behind even after a kill -9 orphaned a
 * postmaster or the state file is out of date.
 */
export const MARK = 'PIS_CLUSTER_DIR';

export class ClusterError extends Error {
  override name = 'ClusterError';
}

export interface Marked {
  pid: number;
  /** argv joined by spaces. */
  command: string;
  env: Map<string, string>;
}

/** The processes whose environment holds MARK=dir (ours, under this DIR), oldest first. */
export async function markedProcesses(dir: string): Promise<Marked[]> {
  const found: Marked[] = [];
  const needle = `${MARK}=${dir}\0`;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environ: string;
    let cmdline: string;
    try {
      environ = await readFile(`/proc/${pid}/environ`, 'utf8');
      if (!`${environ}\0`.includes(needle)) continue;
      cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (await isZombie(pid)) continue;
    const env = new Map<string, string>();
    for (const pair of environ.split('\0')) {
      const at = pair.indexOf('=');
      if (at > 0) env.set(pair.slice(0, at), pair.slice(at + 1));
    }
    found.push({ pid, command: cmdline.split('\0').join(' ').trim(), env });
  }
  return found.sort((a, b) => a.pid - b.pid);
}

export async function isZombie(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

export function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface SpawnOptions {
  dir: string;
  command: string;
  args: string[];
  /** Appended to: stdout and stderr of the process. */
  logFile: string;
  env: Record<string, string | undefined>;
  cwd?: string;
  uid?: number;
  gid?: number;
}

/** Starts a process that outlives this one (its own session, output to a file); returns its pid. */
export async function spawnDetached(options: SpawnOptions): Promise<number> {
  const out = openSync(options.logFile, 'a', 0o640);
  const child = spawn(options.command, options.args, {
    cwd: options.cwd ?? options.dir,
    env: { ...options.env, [MARK]: options.dir },
    detached: true,
    stdio: ['ignore', out, out],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid }),
  });
  const pid = await new Promise<number>((resolve, reject) => {
    child.once('error', (error) =>
      reject(new ClusterError(`cannot start ${options.command}: ${(error as Error).message}`)),
    );
    child.once('spawn', () => resolve(child.pid as number));
  });
  child.unref();
  return pid;
}

/** Polls `check` every 200 ms until it returns a value; throws `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined | false>,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (error instanceof ClusterError) throw error;
      last = error;
    }
    if (performance.now() > deadline) {
      const why = last instanceof Error ? ` (last: ${last.message})` : '';
      throw new ClusterError(`${what}: not within ${Math.round(timeoutMs / 1000)} s${why}`);
    }
    await sleep(200);
  }
}

const KIND_ORDER = ['front', 'service', 'patroni', 'postgres', 'other'] as const;
type Kind = (typeof KIND_ORDER)[number];

function kindOf(process: Marked, dir: string): Kind {
  if (process.command.includes(`${dir}/front-haproxy.cfg`)) return 'front';
  if (process.env.has('PIS_CLUSTER_INSTANCE')) return 'service';
  if (/\/patroni\b/.test(process.command.split(' ').slice(0, 2).join(' '))) return 'patroni';
  if (/\/postgres\b/.test(process.command.split(' ')[0] ?? '')) return 'postgres';
  return 'other';
}

/**
 * Stops every process marked with `dir`, in an order that loses nothing: the front door first,
 * then the service instances (they drain), Patroni (it stops its postgres), any postmaster left
 * (fast shutdown), and last the database's HAProxy, etcd and the rest. SIGKILL for whatever is
 * still there after its step's time. Returns how many processes were stopped.
 */
export async function stopMarked(dir: string, log: (line: string) => void = () => {}): Promise<number> {
  let stopped = 0;
  const budgets: Record<Kind, number> = {
    front: 5_000,
    service: 25_000,
    patroni: 30_000,
    postgres: 20_000,
    other: 10_000,
  };
  for (const kind of KIND_ORDER) {
    const targets = (await markedProcesses(dir)).filter((p) => kindOf(p, dir) === kind);
    if (targets.length === 0) continue;
    for (const target of targets) {
      log(`stopping ${kind} ${target.pid}`);
      try {
        // A postmaster: SIGINT is the fast shutdown (rolls back, no wait for clients).
        process.kill(target.pid, kind === 'postgres' ? 'SIGINT' : 'SIGTERM');
      } catch {}
    }
    stopped += targets.length;
    const deadline = performance.now() + budgets[kind];
    while (targets.some((t) => alive(t.pid)) && performance.now() < deadline) await sleep(100);
    for (const target of targets) {
      if (alive(target.pid)) {
        log(`killing ${kind} ${target.pid}`);
        try {
          process.kill(target.pid, 'SIGKILL');
        } catch {}
      }
    }
  }
  // Anything that appeared meanwhile (an archive-push, a child that outlived its parent).
  for (let round = 0; round < 20; round++) {
    const rest = await markedProcesses(dir);
    if (rest.length === 0) break;
    for (const target of rest) {
      try {
        process.kill(target.pid, round < 10 ? 'SIGTERM' : 'SIGKILL');
      } catch {}
    }
    stopped += round === 0 ? rest.length : 0;
    await sleep(250);
  }
  return stopped;
}
