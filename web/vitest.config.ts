import { defineConfig, mergeConfig } from 'vitest/config';
import viteConfig from './vite.config.ts';

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'jsdom',
      include: ['test/**/*.test.{ts,tsx}'],
      setupFiles: ['test/setup.ts'],
      // A file's first dashboard render transforms the dashboard's lazy chunk (its router, query
      // cache and QR code library): over 5 s on the shared 2-core machine while others build.
      testTimeout: 15_000,
    },
  }),
);
