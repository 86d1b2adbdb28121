import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp } from '../../../server/test/helpers/test-app.ts';

// `npm pack` the built package, install the tarball in a fresh project, compile a strict
// TypeScript file against it with the repo's tsc, and run it against a live server.
// (consumer.ts.txt is that file; not .ts so the repo's own typecheck never needs a built dist.)
// npm pack + install + tsc take ~20 s alone and over a minute on a busy 2-core machine: 3 min.

const run = promisify(execFile);
const packageDir = path.resolve(import.meta.dirname, '../..');
const repoRoot = path.resolve(packageDir, '..');
let workDir = '';

/** Builds when dist is missing or older than a source file (turbo has usually just built it). */
const ensureBuilt = async () => {
  const newest = async (dir: string): Promise<number> => {
    let latest = 0;
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (entry.isFile())
        latest = Math.max(latest, (await stat(path.join(entry.parentPath, entry.name))).mtimeMs);
    }
    return latest;
  };
  const built = await stat(path.join(packageDir, 'dist/index.js')).then(
    (s) => s.mtimeMs,
    () => 0,
  );
  const sources = Math.max(
    await newest(path.join(packageDir, 'src')),
    await newest(path.join(repoRoot, 'shared/src')),
  );
  if (built < sources) await run('npx', ['tsdown'], { cwd: packageDir });
};

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'pis-sdk-pack-'));
  await ensureBuilt();
});
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

it('the packed tarball installs, type-checks under strict and runs against a live server', async () => {
  const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', workDir], {
    cwd: packageDir,
  });
  const [info] = JSON.parse(packed) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = info!.files.map((file) => file.path).sort();
  expect(files).toContain('dist/index.js');
  expect(files).toContain('dist/index.d.ts');
  expect(files).toContain('dist/msw.js');
  expect(
    files.every((file) => file.startsWith('dist/') || ['package.json', 'README.md'].includes(file)),
  ).toBe(true);

  const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8'));
  expect(manifest.dependencies).toEqual({ zod: expect.any(String) });
  expect(JSON.stringify(manifest.dependencies ?? {})).not.toContain('@pis/');
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const code = await readFile(path.join(packageDir, file), 'utf8');
    expect(code, file).not.toMatch(/from ["'](node:|@pis\/)/);
  }

  const project = path.join(workDir, 'consumer');
  await run('mkdir', ['-p', project]);
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2),
  );
  await writeFile(
    path.join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        types: [],
        skipLibCheck: false,
        outDir: 'out',
      },
      files: ['consumer.ts', 'env.d.ts'],
    }),
  );
  // Just enough of Node for the script (no @types/node in a fresh project).
  await writeFile(
    path.join(project, 'env.d.ts'),
    'declare const process: { env: Record<string, string | undefined> };\n',
  );
  await cp(path.join(import.meta.dirname, 'consumer.ts.txt'), path.join(project, 'consumer.ts'));
  // Without the registry: zod from this repo's install (the version the SDK pins), no peer
  // lookups, and a failed metadata fetch given up at once. A CI run once lost its 3 minutes to
  // the registry's TLS failing; what this proves is the tarball, not the network.
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--legacy-peer-deps',
      '--fetch-retries=0',
      path.join(repoRoot, 'node_modules/zod'),
      path.join(workDir, info!.filename),
    ],
    { cwd: project },
  );
  const installed = await readdir(path.join(project, 'node_modules'));
  expect(installed.sort()).toEqual(['.package-lock.json', '@pis', 'zod']);

  await run(path.join(repoRoot, 'node_modules/.bin/tsc'), ['-p', project], { cwd: project });

  const { app, clock, factories } = await createTestApp();
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { apiKey } = await factories.createMerchant();
  // Another local port, and a server answering 307 towards it: the key must never arrive there.
  const elsewhere: IncomingHttpHeaders[] = [];
  const sink = createServer((req, res) => {
    elsewhere.push(req.headers);
    res.end('{}');
  }).listen(0, '127.0.0.1');
  await once(sink, 'listening');
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const redirecting = createServer((req, res) => {
    res.writeHead(307, { location: `${sinkUrl}${req.url}` }).end();
  }).listen(0, '127.0.0.1');
  await once(redirecting, 'listening');
  // The server's test clock stands still; let it follow real time while the script polls.
  const ticker = setInterval(() => clock.advance(100), 100);
  try {
    const { stdout } = await run(process.execPath, [path.join(project, 'out/consumer.js')], {
      cwd: project,
      env: {
        PIS_BASE_URL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
        PIS_API_KEY: apiKey,
        PIS_REDIRECTING_URL: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`,
      },
      timeout: 60_000,
    });
    const result = JSON.parse(stdout.trim());
    expect(result).toMatchObject({
      created: 'AUTHORIZING',
      approved: 'AUTHORIZED',
      final: 'COMPLETED',
      notFound: 404,
    });
    expect(result.seen.at(-1)).toBe('COMPLETED');
    // Issue 13 items 1-3, through the published build.
    expect(result.mismatch).toEqual({ expected: result.expected.dear, returned: result.expected.cheap });
    expect(result.honest).toBe('COMPLETED');
    expect(result.unboundIsTypeError).toBe(true);
    expect(result.refusedIds).toEqual(['.', '..', 'providers']);
    expect(result.sent).toBe(0);
    expect(result.redirect).toEqual({ status: 307, code: 'UNEXPECTED_REDIRECT' });
    expect(elsewhere).toEqual([]);
  } finally {
    clearInterval(ticker);
    sink.close();
    redirecting.close();
  }
}, 180_000);
