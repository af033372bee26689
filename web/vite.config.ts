import katex from 'katex';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { viteSingleFile } from 'vite-plugin-singlefile';
import { defineConfig, type Plugin } from 'vitest/config';
import { glossaryMarkup } from './src/math/glossary';
import { SHIPPED_MODELS } from './src/runtime/shipped-models';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Used with web/ as the root. `vite build web` builds the served page (web/dist): relative asset
// paths, so it works from any folder or an iframe, and beside it the widget bundle for other pages.
// `vite build web --mode offline` builds the deck as one self-contained HTML file that runs from
// file:// (build/offline/attnlab.html). The dev and preview servers send the cross-origin isolation
// headers the threaded engine build needs.
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

/** The glossary slide's list (an empty <dl class="glossary-list"> in index.html) written from
 * src/math/glossary.ts, its formulas as <tex> for prerenderTex, which runs after it; entries link to
 * the slides the page has. */
function writeGlossary(): Plugin {
  const EMPTY = '<dl class="glossary-list"></dl>';
  return {
    name: 'attnlab-glossary',
    transformIndexHtml(html) {
      if (!html.includes(EMPTY)) return html;
      const slides = new Set([...html.matchAll(/<section class="slide[^"]*" id="([^"]+)"/g)].map((m) => m[1]));
      return html.replace(EMPTY, glossaryMarkup(slides));
    },
  };
}

/** The offline page: engine-files.offline.ts in place of engine-files.ts, the single-thread engine
 * and the shipped models as data: URLs (virtual:attnlab-offline), and KaTeX's fonts in WOFF2 only
 * (every browser that runs the engine reads it; the other formats would double the file). */
function offlineFiles(): Plugin {
  const dataUrl = (path: string, type: string) => `data:${type};base64,${readFileSync(here(path)).toString('base64')}`;
  return {
    name: 'attnlab-offline-files',
    enforce: 'pre',
    async resolveId(source, importer) {
      if (source === 'virtual:attnlab-offline') return '\0attnlab-offline';
      if (/\/engine-files$/.test(source) && importer) {
        const resolved = await this.resolve(source.replace(/engine-files$/, 'engine-files.offline'), importer);
        return resolved?.id;
      }
      return undefined;
    },
    load(id) {
      if (id !== '\0attnlab-offline') return undefined;
      const engine = {
        'attnlab.mjs': dataUrl('src/engine/build/attnlab.mjs', 'text/javascript'),
        'attnlab.wasm': dataUrl('src/engine/build/attnlab.wasm', 'application/wasm'),
      };
      const models: Record<string, string> = {};
      for (const name of SHIPPED_MODELS) {
        models[`${name}/model.safetensors`] = dataUrl(`public/models/${name}/model.safetensors`, 'application/octet-stream');
        models[`${name}/config.json`] = dataUrl(`public/models/${name}/config.json`, 'application/json');
        models[`${name}/vocab.json`] = dataUrl(`public/models/${name}/vocab.json`, 'application/json');
        if (existsSync(here(`public/models/${name}/training.json`))) {
          models[`${name}/training.json`] = dataUrl(`public/models/${name}/training.json`, 'application/json');
        }
      }
      return `export const ENGINE = ${JSON.stringify(engine)};\nexport const MODELS = ${JSON.stringify(models)};\n`;
    },
    // the one file's name says what it is
    generateBundle: {
      order: 'post',
      handler(_, bundle) {
        const page = bundle['index.html'];
        if (page) page.fileName = 'attnlab.html';
      },
    },
    transform(code, id) {
      if (!/katex(\.min)?\.css/.test(id)) return undefined;
      return code.replace(/,\s*url\([^)]*\.woff\) format\("woff"\)|,\s*url\([^)]*\.ttf\) format\("truetype"\)/g, '');
    },
  };
}

/** the package's entry points keep fixed names beside the page */
const ENTRY_FILES: Record<string, string> = { widgets: 'attnlab-widgets.js', reveal: 'attnlab-reveal.js' };

export default defineConfig(({ mode }) => mode === 'offline'
  ? {
    base: './',
    publicDir: false,
    plugins: [writeGlossary(), prerenderTex(), offlineFiles(), viteSingleFile({ removeViteModuleLoader: true })],
    build: { outDir: '../build/offline', emptyOutDir: true, target: 'es2022' },
    // a page from file:// has an opaque origin, where Chromium starts no module worker from a blob
    worker: { format: 'iife' },
  }
  : {
    base: './',
    plugins: [writeGlossary(), prerenderTex()],
    // engine files stay separate files, fetched only by the build the browser can run
    build: {
      outDir: 'dist', emptyOutDir: true, target: 'es2022', assetsInlineLimit: 0,
      rollupOptions: {
        // the deck, one widget full-frame for iframes (embed.html), the widget bundle for other
        // pages (attnlab/widgets) and the reveal.js plugin (attnlab/reveal), which keep their exports
        input: { deck: here('index.html'), embed: here('embed.html'), widgets: here('src/widgets/bundle.ts'), reveal: here('src/reveal.ts') },
        preserveEntrySignatures: 'exports-only',
        output: { entryFileNames: (chunk) => (ENTRY_FILES[chunk.name] ?? 'assets/[name]-[hash].js') },
      },
    },
    worker: { format: 'es' },
    server: { headers: isolation, host: '127.0.0.1' },
    preview: { headers: isolation, host: '127.0.0.1' },
    test: { include: ['../tests/js/**/*.test.ts'], environment: 'node' },
  });
