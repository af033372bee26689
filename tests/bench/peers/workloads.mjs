// The workloads of the peers benchmark: their shapes, seeded data, plain-JavaScript references
// (float64, loops) that every peer's output is checked against before it is timed, and the timing
// loop the peers use (the engine's own benchmark() follows the same rule).

export const MATMUL_D = 512;
export const SINGLE_HEAD_D = 64;
export const MULTI_HEAD_D = 512;
export const HEADS = 8;

/** `count` draws of N(0, std²) from a seeded generator (mulberry32, Box–Muller) */
export function normals(count, seed, std = 1) {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const radius = Math.sqrt(-2 * Math.log(uniform())) * std;
    const angle = 2 * Math.PI * uniform();
    out[i] = radius * Math.cos(angle);
    if (i + 1 < count) out[i + 1] = radius * Math.sin(angle);
  }
  return out;
}

/** the weights, the same for every n; scaled by 1/√d so that outputs stay of order one */
export function weights() {
  const d = MULTI_HEAD_D;
  return {
    matmul: normals(MATMUL_D * MATMUL_D, 11, 1 / Math.sqrt(MATMUL_D)),
    wQkv: normals(d * 3 * d, 12, 1 / Math.sqrt(d)),
    bQkv: normals(3 * d, 13, 0.1),
    wO: normals(d * d, 14, 1 / Math.sqrt(d)),
    bO: normals(d, 15, 0.1),
  };
}

/** a workload's inputs at length n: x for matmul and multi_head, q, k, v for single_head */
export function inputs(workload, n) {
  if (workload === 'single_head') {
    const size = n * SINGLE_HEAD_D;
    return { q: normals(size, 21, 1), k: normals(size, 22, 1), v: normals(size, 23, 1) };
  }
  return { x: normals(n * (workload === 'matmul' ? MATMUL_D : MULTI_HEAD_D), 24, 1) };
}

// (rows × inner)·(inner × cols), or ·(cols × inner)ᵀ with transposeB, row-major
function matmul(a, b, rows, inner, cols, transposeB = false) {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; ++i)
    for (let j = 0; j < cols; ++j) {
      let sum = 0;
      for (let t = 0; t < inner; ++t) sum += a[i * inner + t] * (transposeB ? b[j * inner + t] : b[t * cols + j]);
      out[i * cols + j] = sum;
    }
  return out;
}

function softmaxRows(m, rows, cols) {
  for (let i = 0; i < rows; ++i) {
    const row = m.subarray(i * cols, (i + 1) * cols);
    const max = Math.max(...row);
    let sum = 0;
    for (let j = 0; j < cols; ++j) sum += (row[j] = Math.exp(row[j] - max));
    for (let j = 0; j < cols; ++j) row[j] /= sum;
  }
  return m;
}

function attention(q, k, v, n, d) {
  const scores = matmul(q, k, n, d, n, true).map((s) => s / Math.sqrt(d));
  return matmul(softmaxRows(scores, n, n), v, n, n, d);
}

// columns [from, from + width) of a (rows × cols) matrix
const columns = (m, rows, cols, from, width) =>
  Float64Array.from({ length: rows * width }, (_, i) => m[Math.floor(i / width) * cols + from + (i % width)]);

/** what each workload computes, in float64 */
export const reference = {
  matmul: ({ x }, w, n) => matmul(x, w.matmul, n, MATMUL_D, MATMUL_D),
  single_head: ({ q, k, v }, w, n) => attention(q, k, v, n, SINGLE_HEAD_D),
  multi_head: ({ x }, w, n) => {
    const d = MULTI_HEAD_D;
    const dHead = d / HEADS;
    const qkv = matmul(x, w.wQkv, n, d, 3 * d).map((value, i) => value + w.bQkv[i % (3 * d)]);
    const concat = new Float64Array(n * d);
    for (let h = 0; h < HEADS; ++h) {
      const head = (part) => columns(qkv, n, 3 * d, part * d + h * dHead, dHead);
      const mixed = attention(head(0), head(1), head(2), n, dHead);
      for (let i = 0; i < n * dHead; ++i) concat[Math.floor(i / dHead) * d + h * dHead + (i % dHead)] = mixed[i];
    }
    return matmul(concat, w.wO, n, d, d).map((value, i) => value + w.bO[i % d]);
  },
};

export function maxAbsDifference(a, b) {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; ++i) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max;
}

/** like the engine's benchmark(): a warm-up of the same length, then the median of at least
 * `repeats` calls lasting at least `minMs` in all */
export async function medianMs(call, { repeats, minMs }) {
  const runFor = async (times) => {
    const start = performance.now();
    for (let i = 0; i < repeats || performance.now() - start < minMs; ++i) {
      const t0 = performance.now();
      await call();
      times?.push(performance.now() - t0);
    }
  };
  await runFor(null);
  const times = [];
  await runFor(times);
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)], repeats: times.length };
}
