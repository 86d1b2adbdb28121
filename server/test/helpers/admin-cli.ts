import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { REPO_ROOT } from '../../src/config.ts';

const run = promisify(execFile);
const ADMIN = path.join(REPO_ROOT, 'server/src/cli/admin.ts');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the operator CLI as the operator would (Node 24 on the .ts file, as `npm run admin` does). */
export function adminCli(databaseUrl: string) {
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    LINK_SIGNING_SECRET: 'cli-test-secret-0123456789abcdef0123',
  };
  return {
    env,
    async admin(...args: string[]): Promise<CliResult> {
      try {
        const { stdout, stderr } = await run(process.execPath, [ADMIN, ...args], { env, cwd: REPO_ROOT });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failed = error as { code: number; stdout: string; stderr: string };
        return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
      }
    },
  };
}

/** Exit 0 and exactly one JSON line on stdout. */
export function oneJsonLine(result: CliResult): Record<string, unknown> {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}
