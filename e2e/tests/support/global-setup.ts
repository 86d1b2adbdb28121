import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { ARTIFACTS_DIR, childEnv, REPO_ROOT, WEB_DIST } from './e2e-config.ts';
import { startServer } from './server-process.ts';
import { type SuspendedMerchantLinks, suspendedMerchantLinks } from './suspended-merchant.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    mailInboxUrl: string;
    printedMailInbox: string;
    apiKey: string;
    linkSigningSecret: string;
    suspendedMerchantLinks: SuspendedMerchantLinks;
  }
}

const run = promisify(execFile);

/** One server for the whole run, with a fresh organization and a read+write key. */
export default async function setup(project: TestProject) {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  // Always the current web app (a stale dist would test old pages); a Vite build takes ~1 s.
  await run('npm', ['run', '-s', '-w', '@pis/web', 'build'], { cwd: REPO_ROOT, env: childEnv() });
  if (!existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error(`web build missing in ${WEB_DIST}`);

  const server = await startServer();
  try {
    const org = await server.admin(['org:create', '--name', 'E2E Shop']);
    const organizationId = String(org.organizationId ?? org.id);
    const key = await server.admin(['key:create', '--org', organizationId, '--permissions', 'read,write']);
    project.provide('baseUrl', server.baseUrl);
    project.provide('mailInboxUrl', server.mailInboxUrl);
    project.provide('printedMailInbox', server.printedMailInbox);
    project.provide('apiKey', String(key.apiKey ?? key.key));
    project.provide('linkSigningSecret', server.linkSigningSecret);
    project.provide('suspendedMerchantLinks', await suspendedMerchantLinks(server));
  } catch (error) {
    await server.stop();
    throw error;
  }
  return () => server.stop();
}
