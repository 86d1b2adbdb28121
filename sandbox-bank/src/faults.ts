import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * Faults for tests and demos, kept in the bank's data folder (`faults.json`) so the bank's CLI
 * can switch them on a running bank without any API: the bank re-reads the file every
 * RELOAD_MS (effective within 2 s). `outage`: every provider-facing call answers 503 and the
 * customer's pages say the bank is unavailable; `slowMs`: every provider-facing answer waits
 * that long first; `throttleSeconds`: every provider-facing call answers 429 with Retry-After.
 * `answers`: what the PISP API answers instead of the truth, so a provider's tests can prove it
 * refuses a bank it cannot trust (token, PAR and the customer's pages are untouched):
 * `garbage` a signed 200 whose body is not JSON; `shapeless` a signed 200 JSON body without the
 * OB fields; `unsigned` the true answer without `x-jws-signature`; `forged` the true answer with
 * a bank-key signature over another body; `error500` a signed 500 `U500`.
 */
export const ANSWER_FAULTS = ['garbage', 'shapeless', 'unsigned', 'forged', 'error500'] as const;
export type AnswerFault = (typeof ANSWER_FAULTS)[number];

export const FaultsSchema = z.object({
  outage: z.boolean().default(false),
  slowMs: z.number().int().min(0).max(120_000).default(0),
  throttleSeconds: z.number().int().min(0).max(3_600).default(0),
  answers: z.enum(ANSWER_FAULTS).nullable().default(null),
});
export type Faults = z.infer<typeof FaultsSchema>;

export const NO_FAULTS: Faults = { outage: false, slowMs: 0, throttleSeconds: 0, answers: null };
const RELOAD_MS = 1_000;

export const faultsFile = (dataDir: string) => path.join(dataDir, 'faults.json');

export function readFaults(dataDir: string): Faults {
  try {
    return FaultsSchema.parse(JSON.parse(readFileSync(faultsFile(dataDir), 'utf8')));
  } catch {
    return NO_FAULTS;
  }
}

/** Atomic: the bank never reads half a file. */
export function writeFaults(dataDir: string, faults: Faults): void {
  const file = faultsFile(dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(faults)}\n`);
  renameSync(temporary, file);
}

export interface FaultSwitch {
  current(): Faults;
  stop(): void;
}

export function watchFaults(dataDir: string): FaultSwitch {
  let faults = readFaults(dataDir);
  let seen = modified(dataDir);
  const timer = setInterval(() => {
    const now = modified(dataDir);
    if (now !== seen) {
      seen = now;
      faults = readFaults(dataDir);
    }
  }, RELOAD_MS);
  timer.unref();
  return { current: () => faults, stop: () => clearInterval(timer) };
}

function modified(dataDir: string): number {
  try {
    return statSync(faultsFile(dataDir)).mtimeMs;
  } catch {
    return 0;
  }
}
