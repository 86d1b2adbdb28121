import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadResult } from './load.ts';

/**
 * CPU time spent by this process (the server under load; the load generator runs in a child)
 * and by one Postgres cluster (its postmaster, its live backends and the ones that exited),
 * read from /proc. On a shared 2-core machine another job's burst slows a load's requests/s,
 * but hardly changes how much CPU each request costs, so the ratio of CPU per request to the
 * floor's is the steadier figure (the guide's advice). Linux only; elsewhere it reads nothing.
 */

/** Linux's USER_HZ: /proc reports times in hundredths of a second on every platform Node runs. */
const TICK_MICROS = 10_000;

export interface CpuReading {
  nodeMicros: number;
  postgresMicros: number;
}

export async function readCpu(postgresDataDir: string): Promise<CpuReading> {
  const { user, system } = process.cpuUsage();
  return { nodeMicros: user + system, postgresMicros: await postgresMicros(postgresDataDir) };
}

export function cpuSince(before: CpuReading, after: CpuReading): CpuReading {
  return {
    nodeMicros: after.nodeMicros - before.nodeMicros,
    postgresMicros: after.postgresMicros - before.postgresMicros,
  };
}

async function postgresMicros(dataDir: string): Promise<number> {
  const postmaster = Number(
    (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0],
  );
  if (!postmaster) return 0;
  let ticks = 0;
  for (const entry of await readdir('/proc').catch(() => [])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (which may hold spaces): state ppid ... utime(14) stime cutime cstime.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const parent = Number(fields[1]);
    if (pid !== postmaster && parent !== postmaster) continue;
    // The postmaster's cutime/cstime hold the backends that exited (and were waited for).
    const own = Number(fields[11]) + Number(fields[12]);
    ticks += pid === postmaster ? own + Number(fields[13]) + Number(fields[14]) : own;
  }
  return ticks * TICK_MICROS;
}

/** A load's figures with the CPU it cost (this process and the cluster), per 2xx answer. */
export type Measured = LoadResult & { nodeMicros: number; postgresMicros: number };

/** Runs one measured load of `load` against `url` (bench/run.ts's measure). */
export type MeasureLoad = (
  url: string,
  load: 'create' | 'get',
  headers: Record<string, string>,
  getIds: string[],
) => Promise<Measured>;
