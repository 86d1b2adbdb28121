import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `npm run dev` forwards API and logo calls: the Fastify server started with `npm start`. */
const API_TARGET = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every browser that runs es2022 either supports <link rel=modulepreload> or merely loads the
    // dashboard's chunks one request later without it: the polyfill would cost the customer pages
    // 0.4 KB gzipped of their 80 KB budget for nothing they need.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      treeshake: {
        // @trpc/client declares no `sideEffects` (its @trpc/server sibling says false), so the
        // bundler kept its unused WebSocket client (~1 KB gzipped) in the dashboard's chunk (the
        // customer pages no longer use it: src/api/page-call.ts). Its modules only define
        // functions and classes; the dashboard's browser flows catch a change.
        moduleSideEffects: [{ test: /[\\/]node_modules[\\/]@trpc[\\/]client[\\/]/, sideEffects: false }],
      },
    },
  },
  server: {
    proxy: {
      '/trpc': API_TARGET,
      '/api': API_TARGET,
      '/bank-logos': API_TARGET,
    },
  },
});
