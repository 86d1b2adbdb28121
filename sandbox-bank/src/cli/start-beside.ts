import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { boxStaysLast } from '../../../server/src/cli/box-stays-last.ts';
import { sandboxBankWanted } from '../config.ts';

/**
 * The repository's `npm start`: the service, and beside it the sandbox bank unless
 * SANDBOX_BANK=off. Two processes with their own state (the bank has its own Postgres, see
 * docs/decisions/030-sandbox-bank.md), so neither waits for the other. Each child runs in its
 * own process group and gets exactly one signal from here: the service treats a second
 * SIGINT as "exit now", and a terminal's Ctrl-C would otherwise reach it twice.
 */
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const bankOn = sandboxBankWanted();
let stopping = false;
/**
 * Both children's output passes through here: the service's start box (with the first start's
 * one-time credentials) is printed again below the log lines that follow it once they go quiet,
 * so it is the last thing on screen (issue 34 item 13).
 */
const screen = boxStaysLast({
  write: (stream, text) => process[stream].write(text),
  quietMs: 1500,
  windowMs: 60_000,
});

// The service configures its `obie` connection from the bank's client.json even when the bank
// writes it after the service started.
const start = (cwd: string) =>
  spawn(process.execPath, ['src/main.ts'], {
    cwd: path.join(root, cwd),
    stdio: ['inherit', 'pipe', 'pipe'],
    detached: true,
    env: bankOn ? { ...process.env, SANDBOX_BANK_STARTED_BESIDE: '1' } : process.env,
  });

const service = start('server');
const bank: ChildProcess | undefined = bankOn ? start('sandbox-bank') : undefined;
for (const [child, fromService] of [
  [service, true],
  [bank, false],
] as const) {
  child?.stdout?.setEncoding('utf8').on('data', (chunk: string) => screen.pass('stdout', chunk, fromService));
  child?.stderr?.setEncoding('utf8').on('data', (chunk: string) => screen.pass('stderr', chunk, fromService));
}
if (!bankOn) process.stdout.write('Sandbox bank off (SANDBOX_BANK=off)\n');

bank?.on('exit', (code, signal) => {
  if (!stopping)
    process.stderr.write(
      `The sandbox bank stopped (${signal ?? `exit code ${code}`}); the service runs on.\n`,
    );
});
service.on('exit', (code, signal) => {
  stop('SIGTERM');
  process.exitCode = code ?? (signal ? 1 : 0);
});

function stop(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  screen.stop();
  for (const child of [service, bank]) {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => stop(signal));
// A launcher that dies without a signal (an error) takes its children with it.
process.on('exit', () => stop('SIGTERM'));
