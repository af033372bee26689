// Loads the WebAssembly engine once per page; every widget awaits the same instance.
// attnlab.mjs and attnlab.wasm are the Emscripten build output (copied here by scripts/build.sh);
// attnlab.d.mts beside them is the hand-written contract.
import createAttnlab, { type AttnlabModule } from './attnlab.mjs';
import wasmUrl from './attnlab.wasm?url';

export type { AttnlabModule, MatrixData, AttentionHeadTrace, BuildInfo } from './attnlab.mjs';

let instance: Promise<AttnlabModule> | undefined;

export function loadEngine(): Promise<AttnlabModule> {
  if (!instance) instance = createAttnlab({ locateFile: () => wasmUrl });
  return instance;
}
