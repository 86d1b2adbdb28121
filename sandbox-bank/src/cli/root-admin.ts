import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAnyBankCommand } from './admin.ts';

/**
 * The repository's `npm run -s admin -- ...`: `sandbox-bank:*` commands go to the bank's own
 * CLI; everything else to the service's, exactly as before (`npm run -s -w @pis/server admin`).
 * The bank never imports the service's code, and the service's CLI never learns of the bank.
 */
const args = process.argv.slice(2);
if (args[0]?.startsWith('sandbox-bank:')) {
  try {
    const { output, code } = await runAnyBankCommand(args);
    (code === 0 ? process.stdout : process.stderr).write(`${output}\n`);
    process.exitCode = code;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  }
} else {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  const child = spawn('npm', ['run', '-s', '-w', '@pis/server', 'admin', '--', ...args], {
    cwd: root,
    stdio: 'inherit',
  });
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}
