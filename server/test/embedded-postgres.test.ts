import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.ts';
import { silentLogger } from '../src/logger.ts';

const root = await mkdtemp(path.join(os.tmpdir(), 'pis-embedded-'));
// Postgres runs as the `postgres` OS user when we are root: it must reach the folder.
await chmod(root, 0o755);
const options = { dataDir: path.join(root, 'postgres'), port: 0, password: 'pw', logger: silentLogger() };
const stops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const stop of stops) await stop();
  await rm(root, { recursive: true, force: true });
});

test('a second process reuses the running cluster instead of failing on the locked folder', async () => {
  const first = await startEmbeddedPostgres({
    ...options,
    persistent: false,
    postgresFlags: ['-c', 'fsync=off'],
  });
  stops.push(() => first.stop());
  expect(first.owned).toBe(true);

  const second = await startEmbeddedPostgres(options);
  expect(second).toMatchObject({ owned: false, port: first.port });
  const client = new pg.Client({ connectionString: second.url('postgres') });
  await client.connect();
  expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
  await client.end();
  await second.stop(); // not the owner: a no-op
  const again = new pg.Client({ connectionString: first.url('postgres') });
  await again.connect();
  await again.end();
});

test('a folder that is not a Postgres data folder gives a readable error', async () => {
  const dataDir = path.join(root, 'not-postgres');
  await mkdir(dataDir);
  await writeFile(path.join(dataDir, 'notes.txt'), 'hello');
  await expect(startEmbeddedPostgres({ ...options, dataDir })).rejects.toThrow(/not a Postgres data folder/);
});

test('when postgres exits during start-up, the error carries its log lines', async () => {
  const failing = startEmbeddedPostgres({
    ...options,
    dataDir: path.join(root, 'bad-flags'),
    persistent: false,
    postgresFlags: ['-c', 'no_such_setting=1'],
  });
  await expect(failing).rejects.toThrow(
    /could not start the embedded Postgres cluster[\s\S]*no_such_setting/,
  );
});
