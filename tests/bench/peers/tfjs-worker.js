// TensorFlow.js with its WebAssembly backend (XNNPACK) in a Worker, as the engine runs in one. A
// classic worker: the backend ships as a UMD script that expects the global `tf`. page.mjs drives it.
/* global tf */
importScripts('./node_modules/@tensorflow/tfjs-core/dist/tf-core.min.js',
  './node_modules/@tensorflow/tfjs-backend-wasm/dist/tf-backend-wasm.min.js');

// shapes and the timing loop, shared with the page and the other worker (an ES module)
let workloads;

// the same computations as the ONNX operator graphs, written the way a tfjs user would
const WORKLOADS = {
  matmul: ({ x }, w) => tf.matMul(x, w.matmul),
  single_head: ({ q, k, v }) => {
    const scale = 1 / Math.sqrt(q.shape[1]);
    return tf.matMul(tf.softmax(tf.mul(tf.matMul(q, k, false, true), scale)), v);
  },
  multi_head: ({ x }, w) => {
    const { HEADS } = workloads;
    const [n, d] = x.shape;
    const dHead = d / HEADS;
    const [q, k, v] = tf.split(tf.add(tf.matMul(x, w.wQkv), w.bQkv), 3, 1)
      .map((m) => tf.transpose(tf.reshape(m, [n, HEADS, dHead]), [1, 0, 2])); // (h × n × d_head)
    const attentionWeights = tf.softmax(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dHead)));
    const concat = tf.reshape(tf.transpose(tf.matMul(attentionWeights, v), [1, 0, 2]), [n, d]);
    return tf.add(tf.matMul(concat, w.wO), w.bO);
  },
};

const prepared = new Map();
let weights;
const hardwareConcurrency = navigator.hardwareConcurrency;

const handlers = {
  async init({ threads, weights: w }) {
    workloads = await import('./workloads.mjs');
    tf.wasm.setWasmPaths(new URL('./node_modules/@tensorflow/tfjs-backend-wasm/dist/', self.location.href).href);
    tf.wasm.setThreadsCount(threads);
    // tfjs caps its threads at navigator.hardwareConcurrency / 2 (it assumes two hyperthreads a
    // core): on a 2-core machine that is one thread whatever is asked for, so it is told twice as many
    Object.defineProperty(navigator, 'hardwareConcurrency', { value: 2 * threads });
    if (!(await tf.setBackend('wasm'))) throw new Error('the wasm backend did not start');
    await tf.ready();
    const { MATMUL_D, MULTI_HEAD_D: d } = workloads;
    weights = {
      matmul: tf.tensor2d(w.matmul, [MATMUL_D, MATMUL_D]),
      wQkv: tf.tensor2d(w.wQkv, [d, 3 * d]),
      bQkv: tf.tensor1d(w.bQkv),
      wO: tf.tensor2d(w.wO, [d, d]),
      bO: tf.tensor1d(w.bO),
    };
  },
  prepare({ key, variant, n, data }) {
    const tensors = Object.fromEntries(Object.entries(data).map(([name, values]) => [name, tf.tensor2d(values, [n, values.length / n])]));
    // the wasm backend computes as each op is called: when tidy returns, the result is there
    prepared.set(key, () => tf.tidy(() => WORKLOADS[variant](tensors, weights)));
  },
  output({ key }) {
    const out = prepared.get(key)();
    const values = out.dataSync();
    out.dispose();
    return values;
  },
  time({ key, repeats, minMs }) {
    const call = prepared.get(key);
    return workloads.medianMs(() => call().dispose(), { repeats, minMs });
  },
  async runtime() {
    return {
      version: tf.version_core,
      backend: tf.getBackend(),
      threads: tf.wasm.getThreadsCount(),
      hardwareConcurrency: { actual: hardwareConcurrency, toldTfjs: navigator.hardwareConcurrency },
      simd: await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'),
      threadsSupported: await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'),
      crossOriginIsolated: self.crossOriginIsolated,
      files: performance.getEntriesByType('resource').map((e) => e.name),
    };
  },
};

self.onmessage = async ({ data: { id, type, ...args } }) => {
  try {
    self.postMessage({ id, result: await handlers[type](args) });
  } catch (error) {
    self.postMessage({ id, error: `tfjs ${type}: ${error?.message ?? error}` });
  }
};
