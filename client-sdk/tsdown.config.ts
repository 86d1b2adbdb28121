import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: { index: 'src/index.ts', msw: 'src/msw/index.ts' },
  format: 'esm',
  platform: 'neutral',
  target: 'es2022',
  // The one root tsconfig covers every package; `eager` makes the dts pass load shared's sources
  // so their types can be inlined (without it the declarations of @pis/shared come out empty).
  dts: { eager: true },
  deps: {
    alwaysBundle: ['@pis/shared'],
    // What may be inlined: the private contract package and what it needs. Anything else found
    // in the bundle fails the build (zod and msw stay imports: a dependency and a peer).
    onlyBundle: ['@pis/shared', 'currency-codes', 'first-match', 'nub', 'ibantools'],
    onlyImport: ['zod', 'msw'],
    dts: { alwaysBundle: ['@pis/shared'] },
  },
  // The dts pass reads the whole monorepo tsconfig and is slow by nature; no need to say so each build.
  checks: { bundlerTimings: false },
  // shared declares no `sideEffects: false`; without this every schema in it (and its currency
  // table) would land in the main entry, which only needs `isTerminal`.
  treeshake: {
    moduleSideEffects: (id: string) => !id.includes('/shared/src/'),
  },
});
