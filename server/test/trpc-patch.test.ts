import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * tRPC's middleware chain as installed is patched (patches/@trpc+server+*.patch, applied by the
 * root `postinstall`): its build copied the call's options and context at every middleware level
 * with a down-levelled object-spread helper, ~34 µs a call, where native spread costs ~4
 * (docs/decisions/082-the-products-floor.md). An install that skipped the patch
 * (`--ignore-scripts`, a tRPC upgrade whose patch was not redone) still works, only slower: this
 * says so instead.
 */
describe('the installed tRPC', () => {
  it('runs its middleware chain with native object spread', () => {
    const dist = path.dirname(fileURLToPath(import.meta.resolve('@trpc/server')));
    const chain = readdirSync(dist).filter((file) => /^initTRPC-.*\.mjs$/.test(file));
    expect(chain).toHaveLength(1);
    const source = readFileSync(path.join(dist, chain[0] as string), 'utf8');
    const callRecursive = source.slice(source.indexOf('async function callRecursive('));
    const body = callRecursive.slice(0, callRecursive.indexOf('\nfunction '));
    expect(body).toContain('...opts,');
    expect(body).not.toContain('_objectSpread2');
  });
});
