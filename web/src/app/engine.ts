// The page's engine: one instance for every widget. The engine files are imported as URLs, so a
// bundle of the widgets finds them wherever it is served from (this page, slides, an iframe).
import { loadAttnlab, type Engine } from '../engine/index';
import singleThreadModule from '../engine/build/attnlab.mjs?url';
import singleThreadWasm from '../engine/build/attnlab.wasm?url';
import threadedModule from '../engine/build/attnlab-threads.mjs?url';
import threadedWasm from '../engine/build/attnlab-threads.wasm?url';
import threadedWorker from '../engine/build/attnlab-threads.worker.js?url';

let instance: Promise<Engine> | undefined;

export function pageEngine(): Promise<Engine> {
  instance ??= loadAttnlab({
    files: {
      'attnlab.mjs': singleThreadModule,
      'attnlab.wasm': singleThreadWasm,
      'attnlab-threads.mjs': threadedModule,
      'attnlab-threads.wasm': threadedWasm,
      'attnlab-threads.worker.js': threadedWorker,
    },
  });
  return instance;
}
