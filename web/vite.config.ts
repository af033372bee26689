import katex from 'katex';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vitest/config';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Used with web/ as the root (`vite build web`). The page is fully static: relative asset paths (so it works from any folder or an iframe) and
// cross-origin isolation headers on the dev/preview servers, which the threaded engine build needs.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** <tex>…</tex> and <tex display>…</tex> in index.html become KaTeX's HTML at build time, so the
 * slides' formulas are there at first paint, before any script runs. A TeX error fails the build. */
function prerenderTex(): Plugin {
  return {
    name: 'attnlab-prerender-tex',
    transformIndexHtml(html) {
      return html.replace(/<tex( display)?>([\s\S]*?)<\/tex>/g, (_, display: string | undefined, tex: string) =>
        katex.renderToString(tex.trim(), { displayMode: Boolean(display), throwOnError: true, output: 'htmlAndMathml' }));
    },
  };
}

export default defineConfig({
  base: './',
  plugins: [prerenderTex()],
  // engine files stay separate files (a worker cannot start from an inlined data: URL)
  build: {
    outDir: 'dist', emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0,
    rollupOptions: {
      // the deck, and the widget bundle for other pages (attnlab/widgets), which keeps its exports
      input: { deck: here('index.html'), widgets: here('src/widgets/bundle.ts') },
      preserveEntrySignatures: 'exports-only',
      output: { entryFileNames: (chunk) => (chunk.name === 'widgets' ? 'attnlab-widgets.js' : 'assets/[name]-[hash].js') },
    },
  },
  worker: { format: 'es' },
  server: { headers: isolation, host: '127.0.0.1' },
  preview: { headers: isolation, host: '127.0.0.1' },
  test: { include: ['../tests/js/**/*.test.ts'], environment: 'node' },
});
