// npm run bench -- --peers: the engine against onnxruntime-web and TensorFlow.js on the same
// attention workloads in one headless Chromium page, and against PyTorch for a training step.
// Measurements only: nothing here passes or fails on a time.
//
// In the browser (page.html, page.mjs), each runtime in its own Worker with 2 threads:
//   engine   the threaded build; engine.benchmark() times its kernels inside the engine (C++
//            clock, inputs and outputs stay in the engine)
//   ORT      onnxruntime-web, WebAssembly execution provider, SIMD, numThreads 2, proxy off; it runs
//            ONNX graphs that onnx-graphs.mjs writes byte by byte (no converter); a call is
//            session.run(), which copies the inputs into its heap and the output out
//   tfjs     @tensorflow/tfjs-core with the WebAssembly backend (XNNPACK), threaded SIMD build; a
//            call is the ops inside tf.tidy(), inputs and output staying in the backend
// The peers are timed by performance.now() in their Workers with the engine's rule: a warm-up as
// long as the measurement, then the median of at least 5 calls lasting at least 200 ms.
// Workloads, at n = 128, 256, 512:
//   matmul       (n × 512)·(512 × 512) (engine kernel matmul, its product; and its multiply_add_peak
//                probe, to which the product at n = 512 is compared)
//   single head  softmax(Q·Kᵀ/√d)·V, d = 64 (engine kernel single_head)
//   multi head   8 heads, d_model = 512, with projections and biases (engine kernel multi_head);
//                ORT twice: as operators and with its fused com.microsoft Attention kernel, the
//                faster of the two counting
// Before anything is timed, every runner's output at n = 8 is checked against a float64 reference
// (workloads.mjs) to 1e-3, the engine's too, so a wrong graph cannot be timed. Then the runners
// take turns case by case (A B C, A B C …, the first of them rotating with the round) for several
// rounds; a figure is the median over the rounds, a ratio is peer ms / engine ms (above 1: the
// engine is faster).
//
// Training (torch_training_step.py says what is the same and what differs): one step of the
// coreference demo model at batch 32, the engine's trainer in Node (threaded build) and PyTorch
// on the CPU (/usr/bin/python3, Debian's python3-torch), with 1 and then 2 threads, in turns.
//
// The peers are this folder's own npm dependencies (package.json, package-lock.json), installed
// only for this benchmark: npm ci --prefix tests/bench/peers. Their .wasm files are served from
// that node_modules by the local server; the page loads nothing from another origin.
//
//   node tests/bench/peers/index.mjs     on its own: prints the tables, writes build/bench-peers.json
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launch, openPage } from '../../e2e/browser.mjs';
import { serve } from '../../e2e/server.mjs';

const HERE = 'tests/bench/peers/';
const PYTHON = '/usr/bin/python3';
const INSTALL = `npm ci --prefix ${HERE}`;
const LABELS = {
  matmul: 'matmul (n×512)·(512×512)',
  single_head: '1 head, d=64',
  multi_head: '8 heads, d_model=512, with projections',
};
const ORT_GRAPHS = {
  matmul: 'MatMul',
  single_head: 'operators',
  multi_head_ops: 'operators',
  multi_head_fused: 'fused Attention',
};

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (value) => (value == null ? '–' : value < 10 ? value.toFixed(2) : value.toFixed(1));
const ratio = (peer, engine) => (peer != null && engine != null ? peer / engine : null);
const times = (value) => (value == null ? '–' : `${value.toFixed(2)}×`);
const log = (line) => process.stderr.write(`${line}\n`);

/** what the browser part measured, one row per workload and n */
function browserRows(samples, rounds) {
  const cases = [...new Map(samples.map((s) => [`${s.workload}@${s.n}`, s])).values()];
  return cases.map(({ workload, n }) => {
    const of = (runner, variant) => {
      const matching = samples.filter((s) => s.workload === workload && s.n === n && s.runner === runner && (!variant || s.variant === variant));
      return matching.length ? median(matching.map((s) => s.ms)) : null;
    };
    const ortGraphs = Object.fromEntries(Object.keys(ORT_GRAPHS).map((v) => [v, of('ort', v)]).filter(([, value]) => value != null));
    const [ortGraph, ortMs] = Object.entries(ortGraphs).sort((a, b) => a[1] - b[1])[0] ?? [null, null];
    const engineMs = of('engine');
    const tfjsMs = of('tfjs');
    return {
      workload, n, engineMs, ortMs, ortGraph, ortGraphs, tfjsMs,
      ortOverEngine: ratio(ortMs, engineMs), tfjsOverEngine: ratio(tfjsMs, engineMs), rounds,
    };
  });
}

async function browserPart({ browser, serverUrl, ns, rounds, threads }) {
  const origin = new URL(serverUrl).origin;
  const { page, problems, requests, close } = await openPage(browser, `${serverUrl}${HERE}page.html`);
  page.on('console', (m) => m.type() === 'info' && log(m.text()));
  try {
    await page.waitForFunction(() => typeof window.runPeers === 'function');
    const result = await page.evaluate((options) => window.runPeers(options),
      { ns, checkN: 8, rounds, repeats: 5, minMs: 200, threads });
    const fetched = [...requests, ...result.runtimes.ort.files, ...result.runtimes.tfjs.files];
    const foreign = fetched.filter((url) => !url.startsWith(origin) && !/^(blob|data):/.test(url));
    if (foreign.length) throw new Error(`the peers page loaded files from another origin: ${foreign.join(', ')}`);
    for (const problem of problems) log(`page console: ${problem}`);
    return result;
  } finally {
    await close();
  }
}

function torchAvailable() {
  return spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
}

/** the training step, engine and PyTorch in turns at each thread count, over several rounds */
async function trainingPart({ root, rounds, threadCounts, batchSize = 32, warmUp = 10, steps = 40 }) {
  const { loadAttnlab } = await import(pathToFileURL(join(root, 'build/package/index.js')).href);
  const engine = await loadAttnlab({ threads: 'auto' });
  const withTorch = torchAvailable();
  const samples = { engine: {}, torch: {} };
  let parameters;
  let torchVersion;
  for (let round = 0; round < rounds; ++round) {
    for (const threads of threadCounts) {
      engine.setThreads(threads);
      const trainer = engine.createTrainer({ task: 'coreference', batchSize });
      parameters = trainer.parameters;
      for (let i = 0; i < warmUp; ++i) trainer.step({});
      const stepMs = [];
      for (let i = 0; i < steps; ++i) {
        const t0 = performance.now();
        trainer.step({});
        stepMs.push(performance.now() - t0);
      }
      trainer.dispose();
      (samples.engine[threads] ??= []).push(median(stepMs));
      log(`training round ${round + 1}/${rounds} engine x${threads}: ${median(stepMs).toFixed(2)} ms/step`);
      if (!withTorch) continue;
      const out = JSON.parse(execFileSync(PYTHON, [join(root, HERE, 'torch_training_step.py'), '--threads', String(threads),
        '--batch', String(batchSize), '--warm-up', String(warmUp), '--steps', String(steps)], { encoding: 'utf8' }));
      torchVersion = out.torch;
      (samples.torch[threads] ??= []).push(out.medianMs);
      log(`training round ${round + 1}/${rounds} PyTorch x${threads}: ${out.medianMs.toFixed(2)} ms/step`);
    }
  }
  const rows = threadCounts.map((threads) => {
    const engineMs = median(samples.engine[threads]);
    const torchMs = withTorch ? median(samples.torch[threads]) : null;
    return { workload: 'training_step', task: 'coreference', batchSize, threads, parameters, engineMs, torchMs, torchOverEngine: ratio(torchMs, engineMs), rounds };
  });
  return { rows, engineInfo: engine.info, torchVersion: withTorch ? torchVersion : null };
}

function markdownOf({ rows, runtimes, checks, unavailable, peakGflops }, training, load) {
  const { engine, ort, tfjs } = runtimes;
  const wasmFile = (files) => files.filter((f) => f.endsWith('.wasm')).map((f) => f.split('/').pop()).join(', ');
  const lines = [
    `### The engine against onnxruntime-web and TensorFlow.js (headless Chromium, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'})`,
    '',
    `Load average (1 min) ${load.start.toFixed(1)} at the start, ${load.end.toFixed(1)} at the end: other work on the machine shows in every figure.`,
    '',
    `Each runtime in its own Worker: the engine ${engine.version} (${engine.build}${engine.relaxedSimd ? ' with relaxed SIMD' : ''}, ${engine.threadsUsed} threads, timed by engine.benchmark()); ` +
      `onnxruntime-web ${ort.version} (WebAssembly EP, SIMD ${ort.simd ? 'on' : 'off'}, ${ort.numThreads} threads, ${wasmFile(ort.files)}); ` +
      `TensorFlow.js ${tfjs.version} (${tfjs.backend} backend, SIMD ${tfjs.simd ? 'on' : 'off'}, ${tfjs.threads} threads, ${wasmFile(tfjs.files)}). ` +
      `Median over ${rows[0]?.rounds ?? 0} interleaved rounds of each round's median; ratio = peer ms / engine ms (above 1: the engine is faster).`,
    '',
    '| workload | n | engine ms | ORT ms (graph) | tfjs ms | ORT / engine | tfjs / engine |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const others = Object.entries(r.ortGraphs).filter(([v]) => v !== r.ortGraph).map(([v, value]) => `; ${ORT_GRAPHS[v]} ${ms(value)}`).join('');
    const engineCell = ms(r.engineMs);
    const ortCell = r.ortMs == null ? '–' : `${ms(r.ortMs)} (${ORT_GRAPHS[r.ortGraph]}${others})`;
    lines.push(`| ${LABELS[r.workload]} | ${r.n} | ${engineCell} | ${ortCell} | ${ms(r.tfjsMs)} | ${times(r.ortOverEngine)} | ${times(r.tfjsOverEngine)} |`);
  }
  const product = rows.find((r) => r.workload === 'matmul' && r.n === 512);
  if (product?.engineMs != null && peakGflops) {
    const gflops = (2 * 512 ** 3) / (product.engineMs * 1e6);
    lines.push('', `The engine's multiply-add peak (engine.benchmark multiply_add_peak: 12 independent chains of vector multiply-adds on each of ${engine.threadsUsed} threads): ` +
      `${peakGflops.toFixed(1)} GFLOP/s; its product at n = 512 (512³) ran at ${gflops.toFixed(1)} GFLOP/s, ${(100 * gflops / peakGflops).toFixed(0)} % of that ` +
      '(each chain waits on its own multiply and add, so the probe is a floor of the peak: above 100 %, the product schedules better than it).');
  }
  lines.push('', `Checked against a float64 reference at n = 8 before timing (largest error): ${
    checks.map((c) => `${c.runner} ${c.variant} ${c.maxAbsError.toExponential(1)}`).join(', ')}.`);
  for (const u of unavailable) lines.push(`Not measured: ${u.runner} ${u.variant} (${u.reason}).`);
  if (tfjs.hardwareConcurrency.toldTfjs !== tfjs.hardwareConcurrency.actual) {
    lines.push(`TensorFlow.js caps its threads at navigator.hardwareConcurrency / 2; its Worker reported ${tfjs.hardwareConcurrency.toldTfjs} instead of ${tfjs.hardwareConcurrency.actual} so that it uses ${tfjs.threads}.`);
  }
  lines.push(
    '',
    `### Training step: the coreference demo model (${training.rows[0].parameters} parameters), batch 32, engine in Node against PyTorch${training.torchVersion ? ` ${training.torchVersion}` : ''} on the CPU`,
    '',
    `Median ms per step (forward, cross-entropy, backward, clipping, AdamW) over ${training.rows[0].rounds} interleaved rounds of 40 steps each. ` +
      'The same model, batch and optimiser; the engine runs each 9–12-token sentence at its own length in WebAssembly, ' +
      'PyTorch pads the batch to its longest sentence and runs natively (see torch_training_step.py).',
    '',
    '| threads | engine ms/step | PyTorch ms/step | PyTorch / engine |',
    '| --- | --- | --- | --- |',
    ...training.rows.map((r) => `| ${r.threads} | ${ms(r.engineMs)} | ${r.torchMs == null ? '– (python3-torch not importable)' : ms(r.torchMs)} | ${times(r.torchOverEngine)} |`),
  );
  return lines.join('\n');
}

/**
 * Runs the whole comparison. `root`: the repository; `browser`: from tests/e2e/browser.mjs
 * launch(); `serverUrl`: serve(root) from tests/e2e/server.mjs (cross-origin isolated), its URL or
 * the server itself.
 * Returns `rows` (plain objects, the browser's and the training's) and `markdown` (both tables),
 * with what each runtime used (`runtimes`), the correctness checks and the machine's load.
 */
export async function runPeers({ root, browser, serverUrl, ns = [128, 256, 512], rounds = 5, trainingRounds = 3, threads = 2 }) {
  if (!existsSync(join(root, HERE, 'node_modules'))) {
    throw new Error(`the peers benchmark needs its own dependencies: run \`${INSTALL}\` first`);
  }
  const load = { start: loadavg()[0] };
  const url = typeof serverUrl === 'string' ? serverUrl : serverUrl.url;
  const measured = await browserPart({ browser, serverUrl: url, ns, rounds, threads });
  const rows = browserRows(measured.samples, rounds);
  const training = await trainingPart({ root, rounds: trainingRounds, threadCounts: [1, threads] });
  load.end = loadavg()[0];
  return {
    rows: [...rows, ...training.rows],
    markdown: markdownOf({ rows, ...measured }, training, load),
    runtimes: { ...measured.runtimes, node: training.engineInfo },
    checks: measured.checks,
    load,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  if (!existsSync(join(root, HERE, 'node_modules'))) {
    console.error(`The peers are not installed. From the repository: ${INSTALL}`);
    process.exit(1);
  }
  const server = await serve(root);
  const browser = await launch();
  try {
    const result = await runPeers({ root, browser, serverUrl: server.url });
    console.log(result.markdown);
    mkdirSync(join(root, 'build'), { recursive: true });
    writeFileSync(join(root, 'build/bench-peers.json'), JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model }, ...result }, null, 2));
    console.log('\nwritten to build/bench-peers.json');
  } finally {
    await browser.close();
    server.close();
  }
}
