import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.ts';
import {
  ANSWER_FAULTS,
  type AnswerFault,
  type Faults,
  NO_FAULTS,
  readFaults,
  writeFaults,
} from '../faults.ts';
import { runTppCertificateCommand, TPP_CERTIFICATE_USAGE } from './tpp-certificate.ts';

/**
 * The bank's own operator commands (reached from the repository's `npm run -s admin --` as
 * `sandbox-bank:*`). They write the fault switches into the bank's data folder; a running bank
 * picks them up within 2 seconds. No connection to the bank or its database is needed.
 */
const USAGE = `Sandbox bank commands:
  sandbox-bank:outage --on | --off          every provider-facing call answers 503; the pages say the bank is unavailable
  sandbox-bank:slow --ms N | --off          every provider-facing answer waits N milliseconds first
  sandbox-bank:throttle --retry-after N | --off   every provider-facing call answers 429 with Retry-After: N
  sandbox-bank:answers --mode garbage|shapeless|unsigned|forged|error500 | --off
                                            the PISP API answers wrongly (see the README)
  sandbox-bank:faults [--clear]             show (or clear) the fault switches
${TPP_CERTIFICATE_USAGE}`;

export function runBankCommand(
  argv: string[],
  dataDir = loadConfig().dataDir,
): { output: string; code: number } {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      on: { type: 'boolean' },
      off: { type: 'boolean' },
      clear: { type: 'boolean' },
      ms: { type: 'string' },
      'retry-after': { type: 'string' },
      mode: { type: 'string' },
    },
    strict: true,
  });
  const faults = readFaults(dataDir);
  const save = (next: Faults) => {
    writeFaults(dataDir, next);
    return { output: describe(next), code: 0 };
  };
  const whole = (text: string | undefined, max: number) => {
    const value = Number(text);
    return Number.isInteger(value) && value > 0 && value <= max ? value : undefined;
  };
  switch (command) {
    case 'sandbox-bank:outage':
      if (values.on === values.off) break;
      return save({ ...faults, outage: values.on === true });
    case 'sandbox-bank:slow': {
      if (values.off) return save({ ...faults, slowMs: 0 });
      const ms = whole(values.ms, 120_000);
      if (ms === undefined) break;
      return save({ ...faults, slowMs: ms });
    }
    case 'sandbox-bank:throttle': {
      if (values.off) return save({ ...faults, throttleSeconds: 0 });
      const seconds = whole(values['retry-after'], 3_600);
      if (seconds === undefined) break;
      return save({ ...faults, throttleSeconds: seconds });
    }
    case 'sandbox-bank:answers': {
      if (values.off) return save({ ...faults, answers: null });
      const mode = ANSWER_FAULTS.find((known) => known === values.mode) as AnswerFault | undefined;
      if (mode === undefined) break;
      return save({ ...faults, answers: mode });
    }
    case 'sandbox-bank:faults':
      return values.clear ? save(NO_FAULTS) : { output: describe(faults), code: 0 };
  }
  return { output: USAGE, code: 2 };
}

function describe(faults: Faults): string {
  return [
    `outage: ${faults.outage ? 'on (503)' : 'off'}`,
    `slow: ${faults.slowMs > 0 ? `${faults.slowMs} ms` : 'off'}`,
    `throttle: ${faults.throttleSeconds > 0 ? `429, Retry-After ${faults.throttleSeconds} s` : 'off'}`,
    `answers: ${faults.answers ?? 'off'}`,
    '(a running bank applies this within 2 seconds)',
  ].join('\n');
}

/** Every command, the one that issues a certificate (async) included. */
export async function runAnyBankCommand(
  argv: string[],
  dataDir = loadConfig().dataDir,
): Promise<{ output: string; code: number }> {
  return argv[0] === 'sandbox-bank:tpp-certificate'
    ? runTppCertificateCommand(argv, dataDir)
    : runBankCommand(argv, dataDir);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const { output, code } = await runAnyBankCommand(process.argv.slice(2));
    (code === 0 ? process.stdout : process.stderr).write(`${output}\n`);
    process.exitCode = code;
  } catch (error) {
    process.stderr.write(
      `${error instanceof ConfigError || error instanceof TypeError ? error.message : String(error)}\n${USAGE}\n`,
    );
    process.exitCode = 2;
  }
}
