import { fileURLToPath } from 'node:url';

/**
 * The service's memory settings, owned here so every way it starts gets them (`npm start`, the
 * worker, Docker, the cluster CLI, the tests' and the bench's servers): the entry points call
 * `applyMemorySettings()` before importing anything else, and it re-executes the same process
 * (same PID, same arguments and descriptors: `process.execve`) with what must be set before Node
 * starts. Measured with `npm run bench -- --mixed-only` (docs/decisions/082-the-products-floor.md):
 *
 * - `--max-semi-space-size=4`: V8 sizes the young generation from the machine's memory (134 MB
 *   committed was seen under load); 4 MB semi-spaces keep a request's short-lived objects in a
 *   small nursery at the cost of more, cheaper scavenges.
 * - `--heap-growing-percent=30`: after each full collection the old generation may grow 30% past
 *   what survived before the next, where V8 otherwise lets it grow up to 4x on a machine with
 *   memory to spare (the live heap here is ~50 MB; 200 MB of old space was seen committed).
 * - `MALLOC_ARENA_MAX=2`: glibc gives each thread that allocates (libuv's pool, V8's GC helpers)
 *   an arena of its own, which keeps freed memory resident; two suffice for this process.
 * - `NODE_COMPILE_CACHE`: Node keeps each module's type-stripped source and V8 code on disk, so a
 *   start whose modules are all cached never loads the type stripper (its WebAssembly and its
 *   4 MB source stay resident for the life of the process: ~12 MB of an idle process's RSS), and
 *   compiles less. The folder is beside the code (`node_modules/.cache`), writable by whoever may
 *   change the code, not a shared temp folder another local user could fill; Node keys entries by
 *   file, content and user, and quietly runs without the cache where it cannot write (a read-only
 *   image).
 *
 * Measured (2 minutes of the bench's mixed load, one API + worker process): idle 208 -> 147 MB,
 * at the end 357 -> 181 MB, for ~10% more Node CPU per payment (more frequent collections). No
 * hard heap limit is set: a process that needs more (many waiting reads) still gets it.
 *
 * An operator's own values win: a process started with either already set is left alone for
 * that one, and `PIS_MEMORY_SETTINGS=off` leaves Node's defaults entirely (no compile cache either).
 */
export const MEMORY_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=30'] as const;
export const COMPILE_CACHE_DIR = fileURLToPath(
  new URL('../../../node_modules/.cache/node-compile-cache', import.meta.url),
);
export const MEMORY_ENV = { MALLOC_ARENA_MAX: '2', NODE_COMPILE_CACHE: COMPILE_CACHE_DIR } as const;

export function applyMemorySettings(): void {
  if (process.env.PIS_MEMORY_SETTINGS === 'off' || typeof process.execve !== 'function') return;
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const flags = MEMORY_FLAGS.filter(
    (flag) => !given.some((arg) => arg.startsWith(flag.split('=')[0] ?? flag)),
  );
  const env = Object.entries(MEMORY_ENV).filter(
    ([name]) =>
      process.env[name] === undefined &&
      // Node's own switch for the cache (NODE_DISABLE_COMPILE_CACHE) is an operator's value too.
      !(name === 'NODE_COMPILE_CACHE' && process.env.NODE_DISABLE_COMPILE_CACHE !== undefined),
  );
  if (flags.length === 0 && env.length === 0) return;
  process.execve(
    process.execPath,
    [process.execPath, ...process.execArgv, ...flags, ...process.argv.slice(1)],
    {
      ...process.env,
      ...Object.fromEntries(env),
    },
  );
}
