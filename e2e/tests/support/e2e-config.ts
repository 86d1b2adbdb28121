import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The one module of the e2e package that reads the environment. */
export const REPO_ROOT = path.resolve(fileURLToPath(new URL('../../../', import.meta.url)));
export const WEB_DIST = path.join(REPO_ROOT, 'web', 'dist');
/** Screenshots and measurements (gitignored). */
export const ARTIFACTS_DIR = path.join(REPO_ROOT, 'e2e', 'artifacts');
/** Debian's Chromium; `.ci/run` installs it with apt-get. Never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Set E2E_SERVER_LOG=1 to see the server's output while the tests run. */
export const SHOW_SERVER_LOG = process.env.E2E_SERVER_LOG === '1';
/**
 * The environment for child processes (npm needs PATH, HOME...), as `npm start` would have it:
 * vitest sets NODE_ENV=test, which would make Vite build React's development bundle.
 */
export const childEnv = (): NodeJS.ProcessEnv => ({ ...process.env, NODE_ENV: 'production' });
