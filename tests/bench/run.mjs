// npm run bench [-- --peers]: the engine on every platform it runs on, printed as tables and
// written to build/bench.json. Measurements only; nothing here passes or fails.
// npm run bench -- --only gpt2: the gpt2 rows alone (a few minutes), into build/bench.json alike.
//   kernels   single-head (d = 64) and 8-head (d_model = 512) attention at n = 64 … 512, natively,
//             as WebAssembly in Node and in a headless Chromium Worker (single-thread build,
//             threaded build on 1 and 2 threads)
//   boundary  engine.attention(...) with every array passed from JavaScript, against the same work
//             timed inside the engine
//   long      flash against the whole-matrix path at n = 4096; flash's extra heap at n = 16,384
//   training  a training step of the coreference demo model (batch 32); a traced forward of each
//             shipped model
//   checkpoint a GPT-2-small-shaped checkpoint made at run time (never stored): its load from a
//             Blob with the heap's peak over its parameter bytes, a 128-token prefill, one decoded token
//   gpt2      the same shape from a 548 MB file given to a page's file picker, in a Chromium Worker
//             on 2 threads: load, 128-token prefill, decode at 128 tokens of context and memory,
//             beside onnxruntime-web on the same weights, and the memory-bandwidth bound (gpt2.mjs)
//   page      first contentful paint, engine ready and the gzipped engine, from localhost
//   --peers   onnxruntime-web and tfjs-backend-wasm on the same workloads (tests/bench/peers)
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { loadAttnlab } from '../../build/package/index.js';
import { launch, openPage } from '../e2e/browser.mjs';
import { serve } from '../e2e/server.mjs';
import { gpt2Rows } from './gpt2.mjs';
import { allRows, KERNEL_CASES } from './workloads.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const peers = process.argv.includes('--peers');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
if (only !== undefined && only !== 'gpt2') throw new Error(`--only takes gpt2, not ${only}`);
const rows = [];
const MODELS = ['coreference', 'sort', 'reverse-seq2seq', 'fortunes'];
const models = Object.fromEntries(MODELS.map((name) => {
  const dir = `${root}web/public/models/${name}/`;
  return [name, { weights: new Uint8Array(readFileSync(`${dir}model.safetensors`)), config: readFileSync(`${dir}config.json`, 'utf8'),
    vocab: readFileSync(`${dir}vocab.json`, 'utf8') }];
}));

function native() {
  for (const threads of [1, 2]) {
    const out = execFileSync(`${root}build/native/tests/bench/attnlab_bench`, [String(threads), `${root}web/public/models`, ...MODELS],
      { encoding: 'utf8' });
    for (const line of out.trim().split('\n')) {
      const r = JSON.parse(line);
      rows.push({ section: r.section, workload: r.kernel, n: r.n, label: `native x${threads}`, ms: r.ms, gflops: r.gflops });
    }
  }
}

// the single-thread build, and the threaded build with one and two threads
const SETUPS = [
  { build: 'simd', threads: 1, label: 'simd' },
  { build: 'threads', threads: 1, label: 'threads x1' },
  { build: 'threads', threads: 2, label: 'threads x2' },
];

async function node() {
  for (const { build, threads, label } of SETUPS) {
    const engine = await loadAttnlab({ threads: build === 'simd' ? 1 : 'auto' });
    if (build === 'threads') engine.setThreads(threads);
    rows.push(...await allRows(engine, `Node ${label}`, models));
    process.stderr.write(`Node ${label} done\n`);
  }
}

async function chromium(browser, server) {
  const { page, close } = await openPage(browser, `${server.url}tests/bench/page.html`);
  await page.waitForFunction(() => typeof window.runBenchmarks === 'function');
  page.setDefaultTimeout(0);
  const setups = SETUPS.map((s) => ({ ...s, label: `Chromium ${s.label}` }));
  rows.push(...await page.evaluate((s) => window.runBenchmarks(s), setups));
  await close();
  process.stderr.write('Chromium done\n');
}

/** the deck from web/dist: first contentful paint and the moment the engine reports itself, median of 5 cold loads */
async function pageSpeed(browser) {
  const server = await serve(fileURLToPath(new URL('../../web/dist/', import.meta.url)));
  const loads = [];
  for (let i = 0; i < 5; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (/SIMD/.test(document.querySelector('#engine-info')?.textContent ?? '')) {
          window.__engineReady = performance.now();
          observer.disconnect();
        }
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(server.url);
    await page.waitForFunction(() => window.__engineReady !== undefined, null, { timeout: 60000 });
    loads.push(await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      ready: window.__engineReady,
    })));
    await context.close();
  }
  server.close();
  const median = (key) => loads.map((l) => l[key]).sort((a, b) => a - b)[2];
  rows.push({ section: 'page', workload: 'first contentful paint', label: 'Chromium', ms: median('fcp') });
  rows.push({ section: 'page', workload: 'engine ready', label: 'Chromium', ms: median('ready') });
  const engineDir = `${root}build/package/engine/web/`;
  for (const file of readdirSync(engineDir).filter((f) => f.endsWith('.wasm')).sort()) {
    const bytes = readFileSync(`${engineDir}${file}`);
    rows.push({ section: 'page', workload: `${file} gzipped`, label: 'size', bytes: gzipSync(bytes, { level: 9 }).length, raw: bytes.length });
  }
}

/** the GPT-2 rows, and their table under its heading */
async function gpt2(browser, server) {
  const result = await gpt2Rows({ root, browser, serverUrl: server.url });
  rows.push(...result.rows);
  process.stderr.write('GPT-2 done\n');
  return ['', '## GPT-2 small from a file in Chromium: the engine against onnxruntime-web, 2 threads each', '', result.markdown].join('\n');
}

const machine = `median per call on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`;
const writeRows = () => {
  writeFileSync(`${root}build/bench.json`, JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model }, only, rows }, null, 2));
  console.log('\nwritten to build/bench.json');
};
if (only === 'gpt2') {
  const browser = await launch();
  const server = await serve(root);
  const table = await gpt2(browser, server);
  await browser.close();
  server.close();
  console.log(`${machine}\n${table}`);
  writeRows();
  process.exit(0);
}

native();
await node();
const browser = await launch();
const server = await serve(root);
await chromium(browser, server);
const gpt2Table = await gpt2(browser, server);
await pageSpeed(browser);
let peerTable = '';
if (peers) {
  const { runPeers } = await import('./peers/index.mjs');
  const result = await runPeers({ root, browser, serverUrl: server.url });
  rows.push(...result.rows.map((r) => ({ section: 'peers', ...r })));
  peerTable = result.markdown;
}
await browser.close();
server.close();

// ---- tables ----
const fixed = (x, digits = 2) => (x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));
const table = (head, body) => [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const section = (name) => rows.filter((r) => r.section === name);
const labelsOf = (list) => [...new Set(list.map((r) => r.label))];
const find = (list, workload, n, label) => list.find((r) => r.workload === workload && r.n === n && r.label === label);

const kernels = section('kernels');
const kernelLabels = labelsOf(kernels);
const out = [machine, '', '## Kernels (ms · GFLOP/s)', '',
  table(['kernel', 'n', ...kernelLabels], KERNEL_CASES.map(({ kernel, n }) => [
    kernel === 'single_head' ? '1 head, d=64' : '8 heads, d_model=512', n,
    ...kernelLabels.map((label) => { const r = find(kernels, kernel, n, label); return r ? `${fixed(r.ms)} · ${fixed(r.gflops, 1)}` : '–'; }),
  ]))];

const boundary = section('boundary');
out.push('', '## The JavaScript boundary: engine.attention(...) against the same work inside the engine, n = 512', '',
  table(['workload', 'platform', 'in-engine ms', 'JS call ms', 'call / in-engine'], boundary.map((r) => [
    r.workload === 'head' ? '1 head, d=64, with its projections' : '8 heads, d_model=512, with projections', r.label,
    fixed(r.kernelMs), fixed(r.ms), fixed(r.ratio)])));

const long = section('long');
out.push('', '## Long sequences (d = 64)', '', table(['platform', 'naive n=4096', 'flash n=4096', 'flash / naive GFLOP/s', 'flash n=16,384', 'its extra heap'],
  labelsOf(long).map((label) => {
    const naive = find(long, 'naive', 4096, label), flash = find(long, 'flash', 4096, label), longest = find(long, 'flash', 16384, label);
    return [label, `${fixed(naive.ms, 0)} ms · ${fixed(naive.gflops, 1)}`, `${fixed(flash.ms, 0)} ms · ${fixed(flash.gflops, 1)}`,
      fixed(flash.gflops / naive.gflops), `${fixed(longest.ms, 0)} ms`, `${fixed(longest.peakBytes / 2 ** 20, 1)} MiB`];
  })));

const training = section('training');
const trainingLabels = labelsOf(training);
out.push('', '## Training and traced forward (ms, median; x1 / x2: one thread\'s time over two threads\'; simd / native: '
  + 'the single-thread build over native on one thread)', '',
  table(['workload', ...trainingLabels, 'x1 / x2 (native)', 'x1 / x2 (Node)', 'x1 / x2 (Chromium)', 'simd / native (Node)', 'simd / native (Chromium)'],
  [...new Set(training.map((r) => r.workload))].map((workload) => {
    const ms = (label) => training.find((r) => r.workload === workload && r.label === label)?.ms;
    return [workload, ...trainingLabels.map((label) => fixed(ms(label))),
      fixed(ms('native x1') / ms('native x2')), fixed(ms('Node threads x1') / ms('Node threads x2')),
      fixed(ms('Chromium threads x1') / ms('Chromium threads x2')), fixed(ms('Node simd') / ms('native x1')),
      fixed(ms('Chromium simd') / ms('native x1'))];
  })));

const checkpoint = section('checkpoint');
out.push('', '## A GPT-2-small-shaped checkpoint (124M parameters, random weights; peak: the heap\'s growth while loading over the parameters\' bytes)', '',
  table(['platform', ...new Set(checkpoint.map((r) => r.measure))], labelsOf(checkpoint).map((label) => [label,
    ...checkpoint.filter((r) => r.label === label).map((r) => `${fixed(r.ms, 0)} ms${r.peakRatio === undefined ? '' : ` · peak ${fixed(r.peakRatio)}×`}`)])));
out.push(gpt2Table);

const page = section('page');
out.push('', '## The page from localhost', '', table(['measure', 'value'], page.map((r) => [r.workload,
  r.bytes === undefined ? `${fixed(r.ms, 0)} ms` : `${fixed(r.bytes / 1024, 0)} KiB (of ${fixed(r.raw / 1024, 0)} KiB)`])));
if (peerTable) out.push('', '## Peers', '', peerTable);

console.log(out.join('\n'));
writeRows();
