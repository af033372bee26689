// The workloads of `npm run bench`, run on one engine wherever it lives: Node (run.mjs) or a
// browser's Worker (worker.mjs). Each returns plain rows { section, workload, n, label, ms, … };
// run.mjs prints them. Measurements only: nothing here passes or fails.
import { randomGpt2Checkpoint } from './random-checkpoint.mjs';

/** the kernels' table: single-head attention (d = 64) and 8-head attention (d_model = 512) */
export const KERNEL_CASES = ['single_head', 'multi_head'].flatMap((kernel) => [64, 128, 256, 512].map((n) => ({ kernel, n })));

/** median of `repeats` timed calls */
function timedMs(call, repeats) {
  const times = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    call();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[times.length >> 1];
}

/** median of `repeats` timed calls after untimed ones: one, or as many as `warmMs` of time takes */
function medianMs(call, repeats, warmMs = 0) {
  const warmUntil = performance.now() + warmMs;
  do call(); while (performance.now() < warmUntil);
  return timedMs(call, repeats);
}

// A browser starts WebAssembly on its baseline compiler and moves each function to the optimising
// one once it has run for a while: Chromium runs the first few dozen training steps 2–4× slower
// than the later ones. The steady figures warm up this long first; the training step also reports
// its first calls, which is what a page feels in its first second.
const WARM_UP_MS = 2000;

/** seeded uniform numbers in (−scale, scale), so every run times the same input */
function numbers(count, seed, scale) {
  const out = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    out[i] = ((state / 2 ** 32) * 2 - 1) * scale;
  }
  return out;
}

export function kernelRows(engine, label) {
  return KERNEL_CASES.map(({ kernel, n }) => {
    const r = engine.benchmark({ kernel, n });
    return { section: 'kernels', workload: kernel, n, label, ms: r.medianMs, gflops: r.gflops };
  });
}

/** the JS call with every array passed from JavaScript, against the same work timed in the engine:
 * one head from x with its three projections ('head'), and 8 heads with theirs ('multi_head') */
export function boundaryRows(engine, label) {
  const n = 512;
  const head = { x: numbers(n * 64, 1, 1), n, d: 64, wQ: numbers(64 * 64, 2, 0.2), wK: numbers(64 * 64, 3, 0.2),
    wV: numbers(64 * 64, 4, 0.2), dK: 64, dV: 64 };
  const d = 512;
  const heads = { x: numbers(n * d, 5, 1), n, d, heads: 8, cAttnWeight: numbers(d * 3 * d, 6, 0.04),
    cAttnBias: numbers(3 * d, 7, 0.01), cProjWeight: numbers(d * d, 8, 0.04), cProjBias: numbers(d, 9, 0.01) };
  return [
    { workload: 'head', input: head, repeats: 41 },
    { workload: 'multi_head', input: heads, repeats: 9 },
  ].map(({ workload, input, repeats }) => {
    const kernel = engine.benchmark({ kernel: workload, n, repeats, minMs: 0 }).medianMs;
    const call = medianMs(() => engine.attention(input), repeats);
    return { section: 'boundary', workload, n, label, ms: call, kernelMs: kernel, ratio: call / kernel };
  });
}

/** flash against the whole-matrix path at n = 4096, and flash's extra heap at n = 16,384 */
export function longSequenceRows(engine, label) {
  const rows = ['naive', 'flash'].map((kernel) => {
    const r = engine.benchmark({ kernel, n: 4096, repeats: 3, minMs: 0 });
    return { section: 'long', workload: kernel, n: 4096, label, ms: r.medianMs, gflops: r.gflops, peakBytes: r.peakBytes };
  });
  const long = engine.benchmark({ kernel: 'flash', n: 16384, repeats: 1, minMs: 0, warmUp: false });
  rows.push({ section: 'long', workload: 'flash', n: 16384, label, ms: long.medianMs, gflops: long.gflops, peakBytes: long.peakBytes });
  return rows;
}

/** one AdamW step of the coreference task's demo model on a batch of 32, and a traced forward of
 * each shipped model (`models`: { name: { weights, config, vocab } }) */
export function trainingRows(engine, label, models) {
  const trainer = engine.createTrainer({ task: 'coreference', seed: 1, batchSize: 32 });
  const step = () => trainer.step({});
  const rows = [
    { section: 'training', workload: 'training step (coreference, batch 32), its first 21 calls', n: 32, label, ms: timedMs(step, 21) },
    { section: 'training', workload: 'training step (coreference, batch 32)', n: 32, label, ms: medianMs(step, 21, WARM_UP_MS) },
  ];
  trainer.dispose();
  for (const [name, files] of Object.entries(models)) {
    const model = engine.loadModel(files);
    const config = JSON.parse(files.config);
    const tokens = Array.from({ length: config.n_ctx }, (_, i) => (i * 7 + 3) % config.vocab_size);
    const source = config.architecture === 'encoder_decoder' ? { source: tokens } : {};
    rows.push({ section: 'training', workload: `traced forward (${name}, n = ${config.n_ctx})`, n: config.n_ctx, label,
      ms: medianMs(() => model.forward({ tokens, ...source, trace: true }), 21, WARM_UP_MS) });
    model.dispose();
  }
  return rows;
}

/** a GPT-2-small-shaped checkpoint (124M parameters, random weights made here): its load from a
 * Blob read in pieces, as a page's file picker gives it, with the heap's peak over the parameters'
 * bytes; a prefill of 128 tokens and one decoded token */
export async function checkpointRows(engine, label) {
  const { config, weights, parameters } = randomGpt2Checkpoint();
  const blob = new Blob([weights]);
  const before = engine.memoryInUse();
  engine.memoryPeak({ reset: true });
  const start = performance.now();
  const model = await engine.loadModel({ config, weights: blob });
  const loadMs = performance.now() - start;
  const peakRatio = (engine.memoryPeak() - before) / (parameters * 4);
  const prompt = Array.from({ length: 128 }, (_, i) => (i * 7919) % 50257);
  const prefill = timedMs(() => model.startGeneration(prompt), 3);
  const decode = timedMs(() => model.generateStep({ temperature: 0 }), 9);
  model.dispose();
  const workload = 'GPT-2 small shape (124M, random weights)';
  return [
    { section: 'checkpoint', workload, label, measure: 'load from a Blob', ms: loadMs, peakRatio },
    { section: 'checkpoint', workload, label, measure: 'prefill, 128 tokens', ms: prefill },
    { section: 'checkpoint', workload, label, measure: 'decode one token', ms: decode },
  ];
}

/** every workload above on one engine */
export async function allRows(engine, label, models) {
  return [
    ...kernelRows(engine, label),
    ...boundaryRows(engine, label),
    ...longSequenceRows(engine, label),
    ...trainingRows(engine, label, models),
    ...await checkpointRows(engine, label),
  ];
}
