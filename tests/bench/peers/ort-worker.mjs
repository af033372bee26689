// onnxruntime-web in a Worker, as the engine runs in one: the WebAssembly execution provider from
// this folder's node_modules, SIMD, the threads page.mjs asks for, no proxy worker. page.mjs drives it.
import * as ort from './node_modules/onnxruntime-web/dist/ort.wasm.min.mjs';
import { answerCalls } from '../workers.mjs';
import { fusedMultiHeadGraph, matmulGraph, multiHeadGraph, singleHeadGraph } from './onnx-graphs.mjs';
import { HEADS, MATMUL_D, MULTI_HEAD_D, SINGLE_HEAD_D, medianMs } from './workloads.mjs';

ort.env.wasm.wasmPaths = new URL('./node_modules/onnxruntime-web/dist/', import.meta.url).href;
ort.env.wasm.simd = true;
ort.env.wasm.proxy = false;

const GRAPHS = {
  matmul: (n, w) => matmulGraph({ n, d: MATMUL_D, weight: w.matmul }),
  single_head: (n) => singleHeadGraph({ n, d: SINGLE_HEAD_D }),
  multi_head_ops: (n, w) => multiHeadGraph({ n, d: MULTI_HEAD_D, heads: HEADS, ...w }),
  multi_head_fused: (n, w) => fusedMultiHeadGraph({ n, d: MULTI_HEAD_D, heads: HEADS, ...w }),
};

function feedsOf(variant, n, data) {
  if (variant === 'single_head') {
    const dims = [n, SINGLE_HEAD_D];
    return { q: new ort.Tensor('float32', data.q, dims), k: new ort.Tensor('float32', data.k, dims), v: new ort.Tensor('float32', data.v, dims) };
  }
  const d = variant === 'matmul' ? MATMUL_D : MULTI_HEAD_D;
  return { x: new ort.Tensor('float32', data.x, variant === 'multi_head_fused' ? [1, n, d] : [n, d]) };
}

const prepared = new Map();
let weights;

const handlers = {
  init({ threads, weights: w }) {
    ort.env.wasm.numThreads = threads;
    weights = w;
  },
  async prepare({ key, variant, n, data }) {
    const session = await ort.InferenceSession.create(GRAPHS[variant](n, weights), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    prepared.set(key, { session, feeds: feedsOf(variant, n, data) });
  },
  async output({ key }) {
    const { session, feeds } = prepared.get(key);
    return (await session.run(feeds)).y.data;
  },
  time({ key, repeats, minMs }) {
    const { session, feeds } = prepared.get(key);
    return medianMs(() => session.run(feeds), { repeats, minMs });
  },
  // what actually ran: ORT lowers numThreads to 1 where threads cannot run, and the files it fetched
  runtime() {
    return {
      version: ort.env.versions.web,
      numThreads: ort.env.wasm.numThreads,
      simd: ort.env.wasm.simd,
      crossOriginIsolated: self.crossOriginIsolated,
      files: performance.getEntriesByType('resource').map((e) => e.name),
    };
  },
};

answerCalls(handlers, 'onnxruntime-web');
