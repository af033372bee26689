// Run by index.mjs in a cross-origin-isolated page: the engine, onnxruntime-web and TensorFlow.js,
// each in its own Worker with the same number of threads, on the same workloads. Every peer's
// output is first checked against the float64 reference (and that reference against the engine);
// then the runners take turns, case by case, for several rounds. Returns the raw medians.
import { createEngineWorker } from '../../../build/package/worker-client.js';
import { startWorker } from '../workers.mjs';
import { HEADS, MATMUL_D, MULTI_HEAD_D, SINGLE_HEAD_D, inputs, maxAbsDifference, reference, weights } from './workloads.mjs';

const TOLERANCE = 1e-3;
// lets a runner's threads go idle (some spin after a call) before the next one starts
const PAUSE_MS = 50;

/** each workload, the engine's kernel for it and each peer's variants */
const WORKLOADS = [
  { workload: 'matmul', engine: 'matmul', ort: ['matmul'], tfjs: ['matmul'] },
  { workload: 'single_head', engine: 'single_head', ort: ['single_head'], tfjs: ['single_head'] },
  { workload: 'multi_head', engine: 'multi_head', ort: ['multi_head_ops', 'multi_head_fused'], tfjs: ['multi_head'] },
];

const log = (line) => {
  document.querySelector('#log').textContent += `${line}\n`;
  console.info(line);
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// columns [from, from + width) of a (rows × cols) identity: x·selector picks those columns of x
function selector(rows, from, width) {
  const m = new Float32Array(rows * width);
  for (let j = 0; j < width; ++j) m[(from + j) * width + j] = 1;
  return m;
}

/** the engine on the reference's inputs: the product as one head's projection Q = x·W_Q (its
 * trace), single-head attention as attention() of x = [Q K V] with W_Q, W_K, W_V picking Q, K and V
 * out again; multi-head with the benchmark's weights */
async function engineOutput(engine, workload, data, w, n) {
  if (workload === 'matmul') {
    const d = MATMUL_D;
    const r = await engine.attention({ x: data.x, n, d, wQ: w.matmul, wK: w.matmul, wV: w.matmul, dK: d, dV: d, trace: true });
    return r.heads[0].q.data;
  }
  if (workload === 'single_head') {
    const d = SINGLE_HEAD_D;
    const x = new Float32Array(n * 3 * d);
    for (let i = 0; i < n; ++i) ['q', 'k', 'v'].forEach((name, part) => x.set(data[name].subarray(i * d, (i + 1) * d), (3 * i + part) * d));
    const r = await engine.attention({ x, n, d: 3 * d, wQ: selector(3 * d, 0, d), wK: selector(3 * d, d, d), wV: selector(3 * d, 2 * d, d), dK: d, dV: d });
    return r.output.data;
  }
  const r = await engine.attention({ x: data.x, n, d: MULTI_HEAD_D, heads: HEADS, cAttnWeight: w.wQkv, cAttnBias: w.bQkv, cProjWeight: w.wO, cProjBias: w.bO });
  return r.output.data;
}

window.runPeers = async ({ ns, checkN, rounds, repeats, minMs, threads }) => {
  const w = weights();
  const engine = await createEngineWorker({ threads: 'auto' });
  await engine.setThreads(threads);
  const peers = {
    ort: startWorker(new URL('./ort-worker.mjs', import.meta.url), { type: 'module' }),
    tfjs: startWorker(new URL('./tfjs-worker.js', import.meta.url)),
  };
  await Promise.all(Object.values(peers).map((peer) => peer.call('init', { threads, weights: w })));

  const unavailable = [];
  const checks = [];
  const runners = []; // { workload, runner, variant, time(n) }
  for (const { workload, engine: kernel, ...variants } of WORKLOADS) {
    const data = inputs(workload, checkN);
    const expected = reference[workload](data, w, checkN);
    if (kernel) {
      const error = maxAbsDifference(await engineOutput(engine, workload, data, w, checkN), expected);
      checks.push({ workload, runner: 'engine', variant: kernel, n: checkN, maxAbsError: error });
      if (!(error <= TOLERANCE)) throw new Error(`the engine's ${workload} differs from the reference by ${error}`);
      runners.push({ workload, runner: 'engine', variant: kernel, time: async (n) => (await engine.benchmark({ kernel, n, repeats, minMs })).medianMs });
    }
    for (const [name, peer] of Object.entries(peers)) {
      for (const variant of variants[name]) {
        const key = (n) => `${variant}@${n}`;
        try {
          for (const n of [checkN, ...ns]) await peer.call('prepare', { key: key(n), variant, n, data: inputs(workload, n) });
        } catch (error) {
          unavailable.push({ workload, runner: name, variant, reason: error.message });
          log(`${name} ${variant}: unavailable (${error.message})`);
          continue;
        }
        const error = maxAbsDifference(await peer.call('output', { key: key(checkN) }), expected);
        checks.push({ workload, runner: name, variant, n: checkN, maxAbsError: error });
        if (!(error <= TOLERANCE)) throw new Error(`${name} ${variant} differs from the reference by ${error}: a wrong graph`);
        runners.push({ workload, runner: name, variant, time: async (n) => (await peer.call('time', { key: key(n), repeats, minMs })).medianMs });
      }
    }
  }
  log(`checked at n = ${checkN}: ${checks.map((c) => `${c.runner} ${c.variant} ${c.maxAbsError.toExponential(1)}`).join(', ')}`);

  // A B C, A B C …: each case's runners back to back, the first of them rotating with the round
  const samples = [];
  for (let round = 0; round < rounds; ++round) {
    for (const { workload } of WORKLOADS) {
      const turn = runners.filter((r) => r.workload === workload);
      for (const n of ns) {
        for (let i = 0; i < turn.length; ++i) {
          const { runner, variant, time } = turn[(i + round) % turn.length];
          await pause(PAUSE_MS);
          const ms = await time(n);
          samples.push({ workload, n, runner, variant, round, ms });
          log(`round ${round + 1}/${rounds} ${workload} n=${n} ${runner} ${variant}: ${ms.toFixed(3)} ms`);
        }
      }
    }
  }

  // the most the products could reach: independent multiply-add chains on every thread
  const peak = await engine.benchmark({ kernel: 'multiply_add_peak', n: 2000, repeats, minMs });
  log(`multiply-add peak on ${threads} threads: ${peak.gflops.toFixed(1)} GFLOP/s`);

  const runtimes = {
    engine: { ...(await engine.info()), timedIn: 'engine.benchmark() in its Worker (C++ clock, inputs and outputs in the engine)' },
    ort: await peers.ort.call('runtime'),
    tfjs: await peers.tfjs.call('runtime'),
  };
  engine.terminate();
  Object.values(peers).forEach((peer) => peer.terminate());
  return { runtimes, checks, unavailable, samples, peakGflops: peak.gflops };
};
