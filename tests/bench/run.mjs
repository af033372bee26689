// npm run bench: the attention kernels on every platform the engine runs on, printed as a table
// and written to build/bench.json. Measurements only; nothing here passes or fails.
//   single-head attention (d = 64) and 8-head attention (d_model = 512) at n = 64 … 512
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadAttnlab } from '../../build/package/index.js';
import { launch, openPage } from '../e2e/browser.mjs';
import { serve } from '../e2e/server.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CASES = ['single_head', 'multi_head'].flatMap((kernel) => [64, 128, 256, 512].map((n) => ({ kernel, n })));
const rows = [];

function native() {
  const out = execFileSync(`${root}build/native/tests/bench/attnlab_bench`, ['1'], { encoding: 'utf8' });
  for (const line of out.trim().split('\n')) {
    const r = JSON.parse(line);
    rows.push({ kernel: r.kernel, n: r.n, label: 'native', ms: r.ms, gflops: r.gflops });
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
    for (const c of CASES) {
      const r = engine.benchmark(c);
      rows.push({ ...c, label: `Node ${label}`, ms: r.medianMs, gflops: r.gflops });
      process.stderr.write(`Node ${label} ${c.kernel} n=${c.n}: ${r.medianMs.toFixed(3)} ms\n`);
    }
  }
}

async function chromium() {
  const server = await serve(root);
  const browser = await launch();
  const { page, close } = await openPage(browser, `${server.url}tests/bench/page.html`);
  await page.waitForFunction(() => typeof window.runBenchmarks === 'function');
  page.setDefaultTimeout(0);
  const setups = SETUPS.map((s) => ({ ...s, label: `Chromium ${s.label}` }));
  const measured = await page.evaluate(([s, cases]) => window.runBenchmarks(s, cases), [setups, CASES]);
  for (const r of measured) rows.push({ kernel: r.kernel, n: r.n, label: r.label, ms: r.ms, gflops: r.gflops });
  await close();
  await browser.close();
  server.close();
}

native();
await node();
await chromium();

const labels = [...new Set(rows.map((r) => r.label))];
const cell = (kernel, n, label) => rows.find((r) => r.kernel === kernel && r.n === n && r.label === label);
const lines = [`| kernel | n | ${labels.join(' | ')} |`, `| --- | --- | ${labels.map(() => '---').join(' | ')} |`];
for (const { kernel, n } of CASES) {
  lines.push(`| ${kernel === 'single_head' ? '1 head, d=64' : '8 heads, d_model=512'} | ${n} | ${labels.map((label) => {
    const r = cell(kernel, n, label);
    return r ? `${r.ms.toFixed(2)} ms, ${r.gflops.toFixed(1)} GFLOP/s` : '–';
  }).join(' | ')} |`);
}
console.log(`median time and GFLOP/s per call on ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}\n`);
console.log(lines.join('\n'));
writeFileSync(`${root}build/bench.json`, JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model }, rows }, null, 2));
console.log('\nwritten to build/bench.json');
