// The page's engine: one Web Worker running the engine for every widget, so that no engine call
// ever blocks the page, and the page's shipped models, each loaded into it once. The engine files
// are imported as URLs, so the bundle finds them wherever it is served from.
import { createEngineWorker, type RemoteEngine, type RemoteModel } from '../engine/worker-client';
import singleThreadModule from '../engine/build/attnlab.mjs?url';
import singleThreadWasm from '../engine/build/attnlab.wasm?url';
import threadedModule from '../engine/build/attnlab-threads.mjs?url';
import threadedWasm from '../engine/build/attnlab-threads.wasm?url';
import threadedWorker from '../engine/build/attnlab-threads.worker.js?url';

export type { RemoteEngine, RemoteModel };

/** loading progress of the engine, 0 … 1, for every widget's loading bar */
export const engineProgress = new EventTarget();
export let engineFraction = 0;

let instance: Promise<RemoteEngine> | undefined;

export function pageEngine(): Promise<RemoteEngine> {
  instance ??= createEngineWorker({
    worker: new Worker(new URL('../engine/worker.ts', import.meta.url), { type: 'module' }),
    files: {
      'attnlab.mjs': singleThreadModule,
      'attnlab.wasm': singleThreadWasm,
      'attnlab-threads.mjs': threadedModule,
      'attnlab-threads.wasm': threadedWasm,
      'attnlab-threads.worker.js': threadedWorker,
    },
    onProgress: (loaded, total) => {
      engineFraction = total > 0 ? Math.min(1, loaded / total) : 0;
      engineProgress.dispatchEvent(new Event('progress'));
    },
  });
  return instance;
}

/** the trained models the page ships (see README, "Training and the demo models") */
export type ShippedModel = 'coreference' | 'sort';

const models = new Map<ShippedModel, Promise<RemoteModel>>();

/** A shipped model, fetched from models/ beside the page and loaded into the engine worker once. */
export function pageModel(name: ShippedModel): Promise<RemoteModel> {
  let model = models.get(name);
  if (!model) {
    model = loadShipped(name);
    models.set(name, model);
    model.catch(() => models.delete(name));  // a later call tries again
  }
  return model;
}

async function loadShipped(name: ShippedModel): Promise<RemoteModel> {
  const folder = new URL(`models/${name}/`, document.baseURI);
  const get = async (file: string) => {
    const response = await fetch(new URL(file, folder));
    if (!response.ok) throw new Error(`${new URL(file, folder).href}: HTTP ${response.status}`);
    return response;
  };
  const [engine, weights, config, vocab] = await Promise.all([
    pageEngine(),
    get('model.safetensors').then(async (r) => new Uint8Array(await r.arrayBuffer())),
    get('config.json').then((r) => r.text()),
    get('vocab.json').then((r) => r.text()),
  ]);
  return engine.loadModel({ weights, config, vocab });
}
