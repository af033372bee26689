// The engine running GPT-2 small in a page's Worker, as the deck runs it: the package's engine
// (threaded build), the checkpoint from the File the page's file picker gave. gpt2-page.mjs drives
// it by the calls peers/ort-gpt2-worker.mjs answers too (load, prefill, decode; check), and two of
// its own (peakBytes, bandwidth); every time is taken here, in the Worker.
import { loadAttnlab } from '../../build/package/index.js';
import { answerCalls, copyBandwidth } from './workers.mjs';

let engine;
let model;

/** milliseconds of one call */
function timed(call) {
  const start = performance.now();
  call();
  return performance.now() - start;
}

answerCalls({
  /** the engine on `threads` threads, then the checkpoint read from `file` in pieces (GPT-2's
   * tokenizer fetched as a page's load does), its weights kept as `weightStorage` says; the heap's
   * peak is counted from here */
  async load({ file, config, threads, weightStorage }) {
    engine = await loadAttnlab({ threads });
    engine.memoryPeak({ reset: true });
    const start = performance.now();
    model = await engine.loadModel({ config, weights: file, weightStorage });
    const kept = model.weightDtype() === 'F32' ? '' : `, ${model.weightDtype()} weights kept`;
    return { loadMs: performance.now() - start, runtime: `attnlab ${engine.info.version}, ${engine.info.build} build${engine.info.relaxedSimd ? ' with relaxed SIMD' : ''}, ${engine.info.threadsUsed} threads${kept}` };
  },
  /** the logits after `prompt` and after each of `steps` greedy tokens, fed through the KV cache */
  check({ prompt, steps }) {
    const logits = [model.startGeneration(prompt, { logits: true }).logits.data];
    const next = [];
    for (let i = 0; i < steps; i++) {
      const step = model.generateStep({ temperature: 0, logits: true });
      next.push(step.token);
      logits.push(step.logits.data);
    }
    return { next, logits };
  },
  /** ms of a prefill: the KV cache cleared and `tokens` run through it */
  prefill({ tokens }) {
    return timed(() => model.startGeneration(tokens));
  },
  /** ms of each of `steps` decoded tokens (greedy), each fed through the cache after the last */
  decode({ steps }) {
    return Array.from({ length: steps }, () => timed(() => model.generateStep({ temperature: 0 })));
  },
  /** the most heap bytes in use at once since loading began */
  peakBytes() {
    return engine.memoryPeak();
  },
  bandwidth() {
    return copyBandwidth();
  },
}, 'engine');
