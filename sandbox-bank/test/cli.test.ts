import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFaults } from '../src/faults.ts';

/** The repository's `npm run -s admin --` entry: `sandbox-bank:*` reaches the bank's own CLI. */
const ROOT_ADMIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli/root-admin.ts');
const run = promisify(execFile);

describe('the root admin dispatcher', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'sandbox-bank-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const admin = (...args: string[]) =>
    run(process.execPath, [ROOT_ADMIN, ...args], { env: { ...process.env, SANDBOX_BANK_DATA_DIR: dataDir } });

  it('switches an outage on and off in the bank’s data folder', async () => {
    const on = await admin('sandbox-bank:outage', '--on');
    expect(on.stdout).toContain('outage: on (503)');
    expect(readFaults(dataDir).outage).toBe(true);
    await admin('sandbox-bank:outage', '--off');
    expect(readFaults(dataDir).outage).toBe(false);
  });

  it('switches the wrong answers of the PISP API, refusing an unknown mode', async () => {
    const on = await admin('sandbox-bank:answers', '--mode', 'unsigned');
    expect(on.stdout).toContain('answers: unsigned');
    expect(readFaults(dataDir).answers).toBe('unsigned');
    await expect(admin('sandbox-bank:answers', '--mode', 'rude')).rejects.toMatchObject({ code: 2 });
    expect(readFaults(dataDir).answers).toBe('unsigned');
    await admin('sandbox-bank:answers', '--off');
    expect(readFaults(dataDir).answers).toBe(null);
  });

  it('refuses a bad command line with exit 2 and the usage, changing nothing', async () => {
    await admin('sandbox-bank:slow', '--ms', '250');
    await expect(admin('sandbox-bank:slow', '--ms', 'soon')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('sandbox-bank:outage --on | --off'),
    });
    await expect(admin('sandbox-bank:outage', '--sideways')).rejects.toMatchObject({ code: 2 });
    expect(readFaults(dataDir).slowMs).toBe(250);
  });
});
