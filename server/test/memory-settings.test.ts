import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';

/**
 * lifecycle/memory-settings.ts as an entry point uses it (the service itself is checked in
 * graceful-shutdown.test.ts): the process re-executes once with the settings, and an
 * operator's own values are kept.
 */

const SETTINGS = path.resolve(import.meta.dirname, '../src/lifecycle/memory-settings.ts');

async function tempDir() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pis-memory-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function entryPoint(env: Record<string, string>, flags: string[] = []) {
  const dir = await tempDir();
  const script = path.join(dir, 'entry.mjs');
  await writeFile(
    script,
    `import { applyMemorySettings } from ${JSON.stringify(SETTINGS)};
    process.stdout.write(JSON.stringify({ pid: process.pid, phase: 'before' }) + '\\n');
    applyMemorySettings();
    const { getHeapSpaceStatistics } = await import('node:v8');
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    process.stdout.write(JSON.stringify({
      pid: process.pid, phase: 'after', execArgv: process.execArgv, argv: process.argv.slice(2),
      arena: process.env.MALLOC_ARENA_MAX ?? null, youngMb: (young?.space_size ?? 0) / 1048576,
      compileCache: (await import('node:module')).getCompileCacheDir() ?? null,
      typeStripperLoaded: process.moduleLoadList.some((name) => name.includes('amaro')),
    }) + '\\n');`,
  );
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, script, 'an-argument'], {
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('the memory settings every entry point applies', () => {
  it('re-executes once, same PID and arguments, with a small young generation, a slow-growing old one and two malloc arenas', async () => {
    const lines = await entryPoint({});
    // Once before the re-execution, once after it, then nothing more (no loop).
    expect(lines.map((line) => line.phase)).toEqual(['before', 'before', 'after']);
    expect(new Set(lines.map((line) => line.pid)).size).toBe(1);
    const after = lines[2];
    expect(after.execArgv).toEqual(['--max-semi-space-size=4', '--heap-growing-percent=30']);
    expect(after.argv).toEqual(['an-argument']);
    expect(after.arena).toBe('2');
    expect(after.youngMb).toBeLessThanOrEqual(8);
    // Node's compile cache, in the folder beside the code (Node adds a subfolder per version and user).
    expect(after.compileCache).toContain(
      path.resolve(import.meta.dirname, '../../node_modules/.cache/node-compile-cache'),
    );
  });

  it('a start whose modules are cached does not load the type stripper (its memory stays resident)', async () => {
    // The operator's own cache folder is kept: a fresh one here, so the first start fills it.
    const NODE_COMPILE_CACHE = await tempDir();
    const first = await entryPoint({ NODE_COMPILE_CACHE });
    expect(first[2].compileCache).toContain(NODE_COMPILE_CACHE);
    expect(first[2].typeStripperLoaded).toBe(true);
    const second = await entryPoint({ NODE_COMPILE_CACHE });
    expect(second[2].typeStripperLoaded).toBe(false);
  });

  it("keeps the operator's own values, and PIS_MEMORY_SETTINGS=off leaves Node's defaults", async () => {
    const own = await entryPoint({ MALLOC_ARENA_MAX: '4' }, ['--max-semi-space-size=16']);
    // Its young generation and arenas are kept; the setting it did not give is added.
    expect(own.map((line) => line.phase)).toEqual(['before', 'before', 'after']);
    expect(own[2].arena).toBe('4');
    expect(own[2].execArgv).toEqual(['--max-semi-space-size=16', '--heap-growing-percent=30']);

    const noCache = await entryPoint({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(noCache[2].compileCache).toBeNull();
    expect(noCache[2].arena).toBe('2');

    const off = await entryPoint({ PIS_MEMORY_SETTINGS: 'off' });
    expect(off.map((line) => line.phase)).toEqual(['before', 'after']);
    expect(off[1].arena).toBeNull();
    expect(off[1].execArgv).toEqual([]);
    expect(off[1].compileCache).toBeNull();
  });
});
