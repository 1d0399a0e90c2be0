import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

/** The demo app. `npm start` builds it into demo/dist and the reference server serves it. */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: { outDir: resolve(import.meta.dirname, 'dist'), emptyOutDir: true, sourcemap: true },
  server: {
    proxy: { '/api': { target: 'ws://127.0.0.1:8080', ws: true } },
  },
});
