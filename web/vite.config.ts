import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `npm run dev` forwards API and logo calls: the Fastify server started with `npm start`. */
const API_TARGET = 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
  server: {
    proxy: {
      '/trpc': API_TARGET,
      '/api': API_TARGET,
      '/bank-logos': API_TARGET,
    },
  },
});
