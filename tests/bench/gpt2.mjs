// GPT-2 small in headless Chromium as a reader opens it: a GPT-2-small-shaped checkpoint (124M
// parameters, random F32 weights) written at run time to a temporary model.safetensors laid out
// as the hub's (each layer's causal mask included: 548 MB), handed to the page's file picker
// (gpt2.html's <input type=file>, by Playwright's setInputFiles) and opened from that File in a
// Worker on 2 threads by the engine (gpt2-worker.mjs) and, when the peers are installed (npm ci
// --prefix tests/bench/peers), by onnxruntime-web (peers/ort-gpt2-worker.mjs, on the graph
// peers/onnx-graphs.mjs writes from the File's weights), their logits checked against each other
// before anything is timed. Measured for each (gpt2-page.mjs runs them in turns):
//   load     the File to a model ready to run: seconds
//   prefill  startGeneration over 128 tokens (the KV cache emptied first): the median over the rounds
//   decode   then one generateStep after another at 128 tokens of context and up: the median ms
//   memory   the engine's heap peak (memoryPeak() from before the load), and each Worker's memory
//            by performance.measureUserAgentSpecificMemory() at the end
//   bound    the weights read per decoded token over the copy bandwidth measured in the engine's
//            Worker (the fastest of 9 TypedArray .set() copies of 256 MiB, bytes read + written per
//            second, one thread): the fastest a decoded token can be while every weight crosses
//            from memory
// The same shape with BF16 weights (written beside it, 249 MB) runs in a second engine Worker with
// weightStorage 'as-stored': its weight matrices stay 16-bit, so a decoded token reads half the bytes
// (its own bound counts them).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPage } from '../e2e/browser.mjs';
import { randomGpt2Checkpoint } from './random-checkpoint.mjs';

const THREADS = 2;
const ROUNDS = 3;
const DECODE_STEPS = 8;
const PROMPT = Array.from({ length: 128 }, (_, i) => (i * 7919) % 50257);
const CHECK_PROMPT = PROMPT.slice(0, 8);
const CHECK_STEPS = 3;
const WORKLOAD = 'GPT-2 small (124M, random weights), a 548 MB File';
const WORKLOAD_BF16 = 'GPT-2 small (124M, random weights) in BF16, a 249 MB File';

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const fixed = (x, digits) => (x === undefined ? '–' : x.toFixed(digits));

/** the checkpoints written into `folder` (F32 with the hub's masks, and BF16): their paths,
 * config.json's text and, by runner, the weight bytes one decoded token reads: every parameter but
 * the position table, of which it reads one row; the BF16 model's weight matrices at 2 bytes each,
 * its vectors and position table widened to F32 */
function writeCheckpoint(folder) {
  const { config, weights, parameters } = randomGpt2Checkpoint(undefined, 1, { masks: true });
  const path = join(folder, 'model.safetensors'), bf16Path = join(folder, 'model-bf16.safetensors');
  writeFileSync(path, weights);
  const bf16 = randomGpt2Checkpoint(undefined, 1, { bf16: true }).weights;
  writeFileSync(bf16Path, bf16);
  const { n_positions: positions, n_embd: d, vocab_size: vocab, n_layer: layers } = JSON.parse(config);
  const f32 = 4 * (parameters - (positions - 1) * d), matrices = vocab * d + layers * 12 * d * d;
  const vectors = parameters - matrices - positions * d + d;
  return {
    path, bf16Path, config, bytes: weights.length, bf16Bytes: bf16.length,
    weightBytesPerToken: { engine: f32, ort: f32, 'engine-bf16': 2 * matrices + 4 * vectors },
  };
}

/** the page's measurements as bench.json rows: one per runtime, one for the bound, one for the check */
function rowsOf(measured, { bytes, bf16Bytes, weightBytesPerToken }) {
  const copy = measured.copyBytesPerSecond;
  const boundMs = (name) => (weightBytesPerToken[name] / copy) * 1000;
  const runtimes = Object.entries(measured.loads).map(([name, { loadMs, runtime }]) => {
    const { prefillMs, decodeMs } = measured.samples[name];
    const decode = median(decodeMs);
    return {
      section: 'gpt2', workload: name === 'engine-bf16' ? WORKLOAD_BF16 : WORKLOAD, label: runtime, runner: name,
      fileBytes: name === 'engine-bf16' ? bf16Bytes : bytes, loadMs,
      prefillMs: median(prefillMs), decodeMs: decode, decodeOverBound: decode / boundMs(name),
      heapPeakBytes: name === 'ort' ? undefined : measured.heapPeaks[name], workerBytes: measured.workerBytes[name],
      prefillSamples: prefillMs, decodeSamples: decodeMs,
    };
  });
  const bound = {
    section: 'gpt2', workload: 'memory-bandwidth bound', label: 'the engine\'s Worker, TypedArray .set() of 256 MiB',
    copyBytesPerSecond: copy, weightBytesPerToken: weightBytesPerToken.engine, boundMs: boundMs('engine'),
    bf16WeightBytesPerToken: weightBytesPerToken['engine-bf16'], bf16BoundMs: boundMs('engine-bf16'),
  };
  const check = measured.check && { section: 'gpt2', workload: 'logits check', label: 'onnxruntime-web against the engine', ...measured.check };
  return [...runtimes, bound, ...(check ? [check] : [])];
}

/** the rows as printed: a table of the runtimes, then the bound, the check and the machine's load in words */
function markdownOf(rows, withOrt, load) {
  const runtimes = rows.filter((r) => r.runner);
  const [engine, ort] = ['engine', 'ort'].map((name) => runtimes.find((r) => r.runner === name));
  const bound = rows.find((r) => r.workload === 'memory-bandwidth bound');
  const check = rows.find((r) => r.workload === 'logits check');
  const mb = (bytes) => fixed(bytes && bytes / 1e6, 0);
  const gbs = (bytesPerSecond) => `${fixed(bytesPerSecond / 1e9, 1)} GB/s`;
  const lines = [
    '| runtime | load s | prefill, 128 tokens, ms | decode ms/token (128 tokens of context) | decode / bound | heap peak MB | Worker memory MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runtimes.map((r) => `| ${r.label} | ${fixed(r.loadMs / 1000, 1)} | ${fixed(r.prefillMs, 0)} | ${fixed(r.decodeMs, 1)} | ${fixed(r.decodeOverBound, 2)}× | ${mb(r.heapPeakBytes)} | ${mb(r.workerBytes)} |`),
    '',
    `Medians over ${ROUNDS} rounds in turns (after one that warms up): the prefills, and ${DECODE_STEPS} decoded tokens a round. ` +
      'Worker memory: performance.measureUserAgentSpecificMemory() at the end (WebAssembly memory never shrinks: its peak).',
    `Bound: ${fixed(bound.weightBytesPerToken / 1e6, 1)} MB of F32 weights read per decoded token over ${gbs(bound.copyBytesPerSecond)} ` +
      `(the fastest of 9 TypedArray .set() copies of 256 MiB in the engine's Worker, bytes read + written per second) = ${fixed(bound.boundMs, 1)} ms/token; ` +
      `with BF16 weight matrices kept, ${fixed(bound.bf16WeightBytesPerToken / 1e6, 1)} MB = ${fixed(bound.bf16BoundMs, 1)} ms/token.`,
  ];
  const bf16 = runtimes.find((r) => r.runner === 'engine-bf16');
  if (bf16) lines.push(`BF16 weights kept over F32: decode ${fixed(engine.decodeMs / bf16.decodeMs, 2)}× faster, prefill ${fixed(engine.prefillMs / bf16.prefillMs, 2)}×.`);
  if (ort) {
    lines.push(`onnxruntime-web over the engine (above 1: the engine is faster): load ${fixed(ort.loadMs / engine.loadMs, 2)}×, ` +
      `prefill ${fixed(ort.prefillMs / engine.prefillMs, 2)}×, decode ${fixed(ort.decodeMs / engine.decodeMs, 2)}×.`);
  }
  if (check) lines.push(`Logits checked before timing, onnxruntime-web against the engine after ${check.tokens} tokens and ${check.steps} greedy ones through the KV cache: largest relative difference ${check.relativeDifference.toExponential(1)}.`);
  if (!withOrt) lines.push('onnxruntime-web not measured: install the peers first (npm ci --prefix tests/bench/peers).');
  lines.push(`Load average (1 min) ${fixed(load.start, 1)} at the start, ${fixed(load.end, 1)} at the end: other work on the machine shows in every figure.`);
  return lines.join('\n');
}

/** The GPT-2 rows (bench.json) and their table, from `browser` on the cross-origin-isolated
 * server of the repository `root` at `serverUrl`. */
export async function gpt2Rows({ root, browser, serverUrl }) {
  const load = { start: loadavg()[0] };
  const folder = mkdtempSync(join(tmpdir(), 'attnlab-bench-gpt2-'));
  const { page, problems, close } = await openPage(browser, `${serverUrl}tests/bench/gpt2.html`);
  try {
    const checkpoint = writeCheckpoint(folder);
    const withOrt = existsSync(join(root, 'tests/bench/peers/node_modules/onnxruntime-web'));
    page.on('console', (m) => m.type() === 'info' && process.stderr.write(`${m.text()}\n`));
    page.setDefaultTimeout(0);
    await page.waitForFunction(() => typeof window.runGpt2 === 'function');
    await page.setInputFiles('#checkpoint', checkpoint.path);
    await page.setInputFiles('#checkpoint-bf16', checkpoint.bf16Path);
    const measured = await page.evaluate((options) => window.runGpt2(options), {
      config: checkpoint.config, threads: THREADS, withOrt, prompt: PROMPT, checkPrompt: CHECK_PROMPT, checkSteps: CHECK_STEPS,
      steps: DECODE_STEPS, rounds: ROUNDS,
    });
    for (const problem of problems) process.stderr.write(`page console: ${problem}\n`);
    load.end = loadavg()[0];
    const rows = rowsOf(measured, checkpoint).map((row) => ({ ...row, load }));
    return { rows, markdown: markdownOf(rows, withOrt, load) };
  } finally {
    await close();
    rmSync(folder, { recursive: true, force: true });
  }
}
