// The benchmark's workloads inside a browser Worker, as the page's engine runs: one engine build
// per worker, the results posted back. Started by page.html.
import { loadAttnlab } from '../../build/package/index.js';
import { allRows } from './workloads.mjs';

self.onmessage = async ({ data: { build, threads, label, models } }) => {
  try {
    const engine = await loadAttnlab({ threads: build === 'simd' ? 1 : 'auto' });
    if (build === 'threads') engine.setThreads(threads);
    self.postMessage({ rows: await allRows(engine, label, models) });
  } catch (error) {
    self.postMessage({ error: String(error?.stack ?? error) });
  }
};
