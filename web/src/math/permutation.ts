// Shuffling a sentence reproducibly, and putting rows computed on the shuffle back in the
// sentence's order. DOM-free.
import type { MatrixData } from './matrix';

/** mulberry32: a small seeded generator of uniform numbers in [0, 1) */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** order[i] = which position of 0…n−1 goes to place i. Seed 0 keeps the order; any other seed
 * shuffles (Fisher–Yates), and never to the same order when n ≥ 2. */
export function seededPermutation(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  if (seed === 0 || n < 2) return order;
  const random = mulberry32(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  // a shuffle that changed nothing is rotated by one, so that the reader always sees a new order
  return order.every((v, i) => v === i) ? order.map((_, i) => (i + 1) % n) : order;
}

/** rows computed on the shuffled sequence (row i belongs to position order[i]), in the original order */
export function unshuffleRows(m: MatrixData, order: readonly number[]): MatrixData {
  if (order.length !== m.rows) throw new Error(`${order.length} positions for ${m.rows} rows`);
  const data = new Float32Array(m.data.length);
  order.forEach((position, i) => data.set(m.data.subarray(i * m.cols, (i + 1) * m.cols), position * m.cols));
  return { rows: m.rows, cols: m.cols, data };
}
