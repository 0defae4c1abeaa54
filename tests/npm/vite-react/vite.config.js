import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Nothing for Lethe in a build. `optimizeDeps.exclude` is for `vite dev` only: its dependency pre-bundling would
// move the package's modules away from the files their new URL(…, import.meta.url) point to.
export default defineConfig({
  base: '/sub/vite/',
  plugins: [react()],
  optimizeDeps: { exclude: ['lethe-eval'] },
});
