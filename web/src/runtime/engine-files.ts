// Where the engine and the shipped models come from when the page (or the widget bundle) is served:
// files beside the bundle, found from its own URL, so that it works from any folder. The offline
// build swaps this module for engine-files.offline.ts, which carries them inside the page.
import singleThreadModule from '../engine/build/attnlab.mjs?url';
import singleThreadWasm from '../engine/build/attnlab.wasm?url';
import threadedModule from '../engine/build/attnlab-threads.mjs?url';
import threadedWasm from '../engine/build/attnlab-threads.wasm?url';
import threadedRelaxedWasm from '../engine/build/attnlab-threads-relaxed.wasm?url';
import threadedWorker from '../engine/build/attnlab-threads.worker.js?url';
import workerUrl from '../engine/worker.ts?worker&url';
import gpt2TokenizerUrl from '../engine/build/gpt2-tokenizer.json?url';

/** the engine's files by name, for LoadOptions.files */
export const ENGINE_FILES: Record<string, string> = {
  'attnlab.mjs': singleThreadModule,
  'attnlab.wasm': singleThreadWasm,
  'attnlab-threads.mjs': threadedModule,
  'attnlab-threads.wasm': threadedWasm,
  // where the browser has relaxed SIMD (fetched in place of the one above, never both)
  'attnlab-threads-relaxed.wasm': threadedRelaxedWasm,
  'attnlab-threads.worker.js': threadedWorker,
};

/** where GPT-2's tokenizer.json is (a GPT-2 checkpoint opened without its own reads with it) */
export function gpt2TokenizerFileUrl(): string | undefined {
  return new URL(gpt2TokenizerUrl, import.meta.url).href;
}

/** Starts the engine's worker. A page may load the bundle from another origin (a CDN, a course
 * site): a worker must come from the page's own origin, so it starts from a same-origin blob that
 * imports the real one. */
export function startWorker(): Worker {
  const url = new URL(workerUrl, import.meta.url);
  if (url.origin === location.origin) return new Worker(url, { type: 'module' });
  const trampoline = new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(trampoline), { type: 'module' });
}

let home: URL | undefined;
let modelsFolder: URL | undefined;

/** the folder the page's files are in (embed.html, models/): the deck's, or the widget bundle's */
export function setHomeFolder(folder: string | URL): void {
  home = new URL(folder, document.baseURI);
}
const homeFolder = () => home ?? new URL('./', document.baseURI);

/** where the shipped models are (a folder holding coreference/ and sort/); default: models/ at home */
export function setModelsFolder(folder: string | URL): void {
  modelsFolder = new URL(folder, document.baseURI);
}

/** the URL of one file of a shipped model, e.g. ("sort", "config.json") */
export function modelFileUrl(name: string, file: string): string {
  return new URL(`${name}/${file}`, modelsFolder ?? new URL('models/', homeFolder())).href;
}

/** the deck beside the widgets (index.html), at a slide's hash ("#rope"): where a term's link goes
 * from a page without the deck */
export function deckPageUrl(hash: string): string | undefined {
  return new URL(`index.html${hash}`, homeFolder()).href;
}

/** the page that shows one widget full-frame (for iframes), at `hash` ("#explorer&xlayer=0") */
export function embedPageUrl(hash: string): string | undefined {
  return new URL(`embed.html${hash}`, homeFolder()).href;
}
