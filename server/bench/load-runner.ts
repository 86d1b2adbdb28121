import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { LoadResult, LoadSpec } from './load.ts';

const LOAD_SCRIPT = fileURLToPath(new URL('./load.ts', import.meta.url));

/** Runs one autocannon load in a child process (see load.ts) and returns its figures. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const { stdout } = await promisify(execFile)(process.execPath, [LOAD_SCRIPT, JSON.stringify(spec)], {
    maxBuffer: 10 * 1024 * 1024,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as LoadResult;
}
