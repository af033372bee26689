// onnxruntime-web running GPT-2 small in a page's Worker, beside the engine's (../gpt2-worker.mjs,
// whose calls to load, check and time it answers alike): the WebAssembly execution provider from
// this folder's node_modules, SIMD, no proxy worker, on the graph onnx-graphs.mjs writes from the
// same File's weights. The KV cache goes in and out of each session.run(), as onnxruntime-web's
// API has it.
import * as ort from './node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import { safetensorsTensors } from '../random-checkpoint.mjs';
import { answerCalls } from '../workers.mjs';
import { gpt2Graph } from './onnx-graphs.mjs';

ort.env.wasm.wasmPaths = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url).href;
ort.env.wasm.simd = true;
ort.env.wasm.proxy = false;

let session;
let shape; // { layers, heads, dHead }
let cache; // the last run's present.{i}.key / .value, fed back as the next run's past
let logits; // the last token's, of the last run

/** an empty KV cache: every layer's keys and values (1 × heads × 0 × d_head) */
function emptyCache() {
  const { layers, heads, dHead } = shape;
  const empty = () => new ort.Tensor('float32', new Float32Array(0), [1, heads, 0, dHead]);
  return Object.fromEntries(Array.from({ length: layers }, (_, i) => [[`${i}.key`, empty()], [`${i}.value`, empty()]]).flat());
}

/** `tokens` after the cached ones through the graph: the cache and logits move on */
async function run(tokens) {
  const past = cache['0.key'].dims[2];
  const total = past + tokens.length;
  const bias = new Float32Array(tokens.length * total);
  for (let i = 0; i < tokens.length; i++) bias.fill(-Infinity, i * total + past + i + 1, (i + 1) * total);
  const feeds = {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, BigInt), [tokens.length]),
    position_ids: new ort.Tensor('int64', BigInt64Array.from(tokens, (_, i) => BigInt(past + i)), [tokens.length]),
    attention_bias: new ort.Tensor('float32', bias, [tokens.length, total]),
    ...Object.fromEntries(Object.entries(cache).map(([name, tensor]) => [`past_key_values.${name}`, tensor])),
  };
  const outputs = await session.run(feeds);
  cache = Object.fromEntries(Object.keys(cache).map((name) => [name, outputs[`present.${name}`]]));
  logits = outputs.logits.data;
}

/** the index of the largest logit: greedy decoding, as the engine's temperature 0 */
function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

async function timed(call) {
  const start = performance.now();
  await call();
  return performance.now() - start;
}

answerCalls({
  /** `threads` threads; the File read whole, its tensors written into an ONNX graph, the session made */
  async load({ file, config, threads }) {
    ort.env.wasm.numThreads = threads;
    const start = performance.now();
    const parsed = JSON.parse(config);
    shape = { layers: parsed.n_layer, heads: parsed.n_head, dHead: parsed.n_embd / parsed.n_head };
    const graph = gpt2Graph({ config: parsed, tensors: safetensorsTensors(new Uint8Array(await file.arrayBuffer())) });
    session = await ort.InferenceSession.create(graph, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
    return { loadMs: performance.now() - start, runtime: `onnxruntime-web ${ort.env.versions.web}, SIMD, ${ort.env.wasm.numThreads} threads` };
  },
  /** the logits after `prompt` and after each token of `next`, fed through the KV cache */
  async check({ prompt, next }) {
    cache = emptyCache();
    await run(prompt);
    const all = [logits];
    for (const token of next) {
      await run([token]);
      all.push(logits);
    }
    return all;
  },
  /** ms of a prefill: the KV cache emptied and `tokens` run through it */
  prefill({ tokens }) {
    cache = emptyCache();
    return timed(() => run(tokens));
  },
  /** ms of each of `steps` decoded tokens (greedy), each fed through the cache after the last */
  async decode({ steps }) {
    const times = [];
    for (let i = 0; i < steps; i++) times.push(await timed(() => run([argmax(logits)])));
    return times;
  },
}, 'onnxruntime-web');
