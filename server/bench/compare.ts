import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench -- --compare REF [--turns N] [flags]` (issue 32 item 6): the regression guard.
 * REF (any commit) is checked out in a throwaway worktree beside this one, with this checkout's
 * dependencies hard-linked in when its lockfile is the same (else installed with `npm ci`), and
 * the hot-path loads (`--http-only` plus the flags given, e.g. `--rate-limits`) run N turns each,
 * alternating: this, REF, this, REF... Each turn is its own bench process with its own throwaway
 * database and its own floor, so a busy minute of the shared machine falls on one turn of each,
 * not on whichever side ran then. Printed per figure: the best turn of each side and the change.
 * The service's own figures (CPU per request, requests/s, p99) are comparable across commits;
 * the floor's are printed to show how much the machine itself moved between turns.
 */

interface Figure {
  name: string;
  requestsPerSecond: number;
  p99Ms: number;
  nodeMicros: number;
  postgresMicros: number;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** A table row of bench/run.ts's print (this format since decision 021). */
const ROW =
  /^(floor create|floor get|service create|service get)\b.*?\s(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+ \((\d+)\+(\d+)\)/;

export async function compareWith(ref: string, turns: number, flags: string[]): Promise<void> {
  const commit = git(['rev-parse', '--verify', `${ref}^{commit}`]).trim();
  const here = git(['rev-parse', 'HEAD']).trim();
  const dirty = git(['status', '--porcelain', '--untracked-files=no']).trim() !== '';
  const worktree = await mkdtemp(path.join(os.tmpdir(), 'pis-bench-compare-'));
  // The embedded Postgres runs as its own OS user when we are root: it must reach REF's binaries.
  await chmod(worktree, 0o755);
  try {
    git(['worktree', 'add', '--detach', worktree, commit]);
    await installDependencies(worktree);
    const sides = [
      { label: `this (${here.slice(0, 7)}${dirty ? ' + changes' : ''})`, root: ROOT, runs: [] as Figure[][] },
      { label: `REF ${ref} (${commit.slice(0, 7)})`, root: worktree, runs: [] as Figure[][] },
    ];
    for (let turn = 1; turn <= turns; turn++) {
      for (const side of sides) {
        console.log(`turn ${turn} of ${turns}: ${side.label}`);
        side.runs.push(await runHotPaths(side.root, flags));
      }
    }
    print(
      sides.map((side) => ({ label: side.label, figures: bestOf(side.runs) })),
      turns,
    );
  } finally {
    git(['worktree', 'remove', '--force', worktree]);
    await rm(worktree, { recursive: true, force: true });
  }
}

function git(args: string[]): string {
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/**
 * REF's dependencies: this checkout's, hard-linked, when the lockfiles match; else its own `npm ci`
 * (with its install scripts: the embedded Postgres links its libraries in one).
 */
async function installDependencies(worktree: string): Promise<void> {
  const sameLock =
    git(['hash-object', path.join(ROOT, 'package-lock.json')]).trim() ===
    execFileSync('git', ['hash-object', path.join(worktree, 'package-lock.json')], {
      encoding: 'utf8',
    }).trim();
  if (!sameLock || !existsSync(path.join(ROOT, 'node_modules'))) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], {
      cwd: worktree,
      stdio: 'inherit',
    });
    return;
  }
  // `cp -al` links every file and copies symlinks as they are: the workspaces' links
  // (node_modules/@pis/shared -> ../../shared) then point into REF's own tree.
  for (const folder of ['', 'shared', 'server', 'web', 'client-sdk', 'e2e', 'sandbox-bank']) {
    const from = path.join(ROOT, folder, 'node_modules');
    const to = path.join(worktree, folder, 'node_modules');
    if (existsSync(from) && existsSync(path.dirname(to)) && !existsSync(to)) {
      execFileSync('cp', ['-al', from, to]);
    }
  }
}

/** One bench process on `root`'s code: the hot paths only, its table read from its output. */
function runHotPaths(root: string, flags: string[]): Promise<Figure[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bench/run.ts', '--http-only', ...flags], {
      cwd: path.join(root, 'server'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      const figures = output.split('\n').flatMap((line): Figure[] => {
        const match = ROW.exec(line);
        if (!match) return [];
        const [, name, requests, , p99, , node, postgres] = match;
        return [
          {
            name: name as string,
            requestsPerSecond: Number(requests),
            p99Ms: Number(p99),
            nodeMicros: Number(node),
            postgresMicros: Number(postgres),
          },
        ];
      });
      if (code !== 0 || figures.length < 4) {
        reject(new Error(`bench in ${root} ended with ${code}; its output:\n${output.slice(-2000)}`));
      } else resolve(figures);
    });
  });
}

/** Per figure, the turn that cost the least CPU per request (bench/run.ts's own rule). */
function bestOf(runs: Figure[][]): Map<string, Figure> {
  const best = new Map<string, Figure>();
  for (const figure of runs.flat()) {
    const previous = best.get(figure.name);
    if (!previous || cpu(figure) < cpu(previous)) best.set(figure.name, figure);
  }
  return best;
}

const cpu = (figure: Figure) => figure.nodeMicros + figure.postgresMicros;

function print(sides: { label: string; figures: Map<string, Figure> }[], turns: number): void {
  const [current, ref] = sides as [(typeof sides)[0], (typeof sides)[0]];
  console.log(`\n--compare, best of ${turns} alternating turns each: ${current.label} vs ${ref.label}`);
  const pad = (text: string, width: number) => text.padEnd(width);
  console.log(
    `${pad('figure', 40)}${pad('REF', 12)}${pad('this', 12)}change  (CPU: less is better; req/s: more is better)`,
  );
  for (const name of ['service create', 'service get', 'floor create', 'floor get']) {
    const before = ref.figures.get(name);
    const after = current.figures.get(name);
    if (!before || !after) continue;
    const rows: [string, number, number][] = [
      ['CPU µs/req (node+pg)', cpu(before), cpu(after)],
      ['  node µs/req', before.nodeMicros, after.nodeMicros],
      ['  postgres µs/req', before.postgresMicros, after.postgresMicros],
      ['req/s', before.requestsPerSecond, after.requestsPerSecond],
      ['p99 ms', before.p99Ms, after.p99Ms],
    ];
    for (const [figure, a, b] of rows) {
      const change = a === 0 ? 'n/a' : `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(0)}%`;
      console.log(
        `${pad(`${name}: ${figure}`, 40)}${pad(a.toFixed(0), 12)}${pad(b.toFixed(0), 12)}${change}`,
      );
    }
  }
  console.log(
    "The floors differ where REF's floor did (the floor kept the request log from issue 32 on); compare the service's rows.",
  );
}
