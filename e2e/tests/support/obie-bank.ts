import path from 'node:path';
import { type SandboxBankSetup, startSandboxBankSetup } from './sandbox-bank-setup.ts';

export const OBIE_BANK_ID = 'obie-sandbox-bank';

export type ObieSetup = SandboxBankSetup;

/**
 * A clean `obie` setup as a newcomer makes it: the sandbox bank started as `npm start` would (own
 * embedded Postgres and keys in a temp folder), a service of its own configured from the bank's
 * client.json, and an organization the operator approved for obie, with a read+write key.
 */
export async function startObieSetup(organizationName: string): Promise<ObieSetup> {
  return startSandboxBankSetup({
    organizationName,
    provider: 'obie',
    clientFile: 'client.json',
    serverEnv: (bankDir) => ({ OBIE: 'on', OBIE_SANDBOX_CLIENT_FILE: path.join(bankDir, 'client.json') }),
  });
}
