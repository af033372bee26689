import { defineConfig } from 'vitest/config';

// Used with web/ as the root (`vite build web`). The page is fully static: relative asset paths (so it works from any folder or an iframe) and
// cross-origin isolation headers on the dev/preview servers, which the threaded engine build needs.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  base: './',
  // engine files stay separate files (a worker cannot start from an inlined data: URL)
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0 },
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation, host: '127.0.0.1' },
  test: { include: ['../tests/js/**/*.test.ts'], environment: 'node' },
});
