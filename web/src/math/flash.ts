// Reading flash attention's tile-by-tile statistics (the engine's running max m and sum ℓ after
// each tile), and planning the n sweep that times it against naive attention and reading its
// slopes. DOM-free.
import type { FlashTile, MatrixData } from '../engine/attnlab.mjs';
import { fitPowerLaw } from './power-law';

/** tiles of a blocked n × n score matrix: ⌈n/B_r⌉ · ⌈n/B_c⌉ */
export function tileCount(n: number, blockRows: number, blockCols: number): number {
  return Math.ceil(n / blockRows) * Math.ceil(n / blockCols);
}

/** One query row after some tiles. */
export interface RowState {
  /** the running max m (−∞ before the row's first tile) */
  max: number;
  /** the running sum ℓ (0 before the row's first tile) */
  sum: number;
  /** the row belongs to the last tile done */
  current: boolean;
  /** e^{m−m′}: the factor the row's ℓ and O were multiplied by, when the last tile raised its max
   * (undefined when it did not, or when it was the row's first tile) */
  rescale?: number;
}

/** every query row's m and ℓ once the first `done` tiles (in the engine's order) have run */
export function rowsAfter(tiles: readonly FlashTile[], done: number, n: number, blockRows: number): RowState[] {
  const rows: RowState[] = Array.from({ length: n }, () => ({ max: -Infinity, sum: 0, current: false }));
  const count = Math.min(done, tiles.length);
  for (let t = 0; t < count; t++) {
    const tile = tiles[t];
    const last = t === count - 1;
    tile.runningMax.forEach((max, k) => {
      const row = rows[tile.queryBlock * blockRows + k];
      const grew = Number.isFinite(row.max) && max > row.max;
      row.current = last;
      row.rescale = last && grew ? Math.exp(row.max - max) : undefined;
      row.max = max;
      row.sum = tile.runningSum[k];
    });
  }
  return rows;
}

/** each row's largest entry */
export function rowMaxima(m: MatrixData): number[] {
  return Array.from({ length: m.rows }, (_, i) => Math.max(...m.data.subarray(i * m.cols, (i + 1) * m.cols)));
}

/** Each row's softmax normaliser Σ_j e^{S_ij − max_j S_ij}, read off its weights: the largest weight
 * is e^0/ℓ, so ℓ = 1 / max_j P_ij. */
export function normalisersFromWeights(weights: MatrixData): number[] {
  return rowMaxima(weights).map((p) => 1 / p);
}

export type SweepKernel = 'flash' | 'naive';

/** One timing of the sweep. */
export interface SweepPoint {
  kernel: SweepKernel;
  n: number;
}

/** the timed kernels' width */
export const TIMED_WIDTH = 64;
/** the longest n the engine times naive attention at (its n×n weights, attnlab.d.mts) */
export const NAIVE_LONGEST = 8192;

/** The n the sweep starts at; it doubles up to the longest. */
export const SWEEP_START = 256;

/** the sweep up to `longest` in the order it runs: at each n flash, then naive while n ≤ naiveLongest */
export function sweepPlan(longest: number, naiveLongest: number): SweepPoint[] {
  const plan: SweepPoint[] = [];
  for (let n = SWEEP_START; n <= longest; n *= 2) {
    plan.push({ kernel: 'flash', n });
    if (n <= naiveLongest) plan.push({ kernel: 'naive', n });
  }
  return plan;
}

/** a point's share of the whole sweep's time, for a progress bar: both kernels cost ∝ n² */
export function sweepShare(plan: readonly SweepPoint[], done: (p: SweepPoint) => boolean): number {
  const work = (p: SweepPoint) => p.n * p.n;
  const total = plan.reduce((sum, p) => sum + work(p), 0);
  return total > 0 ? plan.filter(done).reduce((sum, p) => sum + work(p), 0) / total : 1;
}

/** The sweep's slopes are fitted from this n on: below it a call's fixed costs (threads waking up,
 * the inputs) hide the n². */
export const FIT_FROM = 1024;

/** A call's timing options: short calls are warmed up and repeated for a steadier median; the
 * fitted ones run once, which takes long enough (and leaves one output at a time in the heap). */
export function timingOptions(n: number): { repeats: number; minMs: number; warmUp: boolean } {
  return n < FIT_FROM ? { repeats: 3, minMs: 60, warmUp: true } : { repeats: 1, minMs: 0, warmUp: false };
}

/** the fitted slope of the points (n, y) from n = FIT_FROM on; undefined below two of them */
export function fittedSlope(points: readonly (readonly [number, number])[]): number | undefined {
  const fitted = points.filter(([n]) => n >= FIT_FROM);
  return fitted.length >= 2 ? fitPowerLaw(fitted).exponent : undefined;
}

/** c of the line c·n² through the middle of the points (n, t) from n = FIT_FROM on, on log-log
 * axes: c = e^{mean(ln t − 2 ln n)}; undefined without any */
export function squareThroughMiddle(points: readonly (readonly [number, number])[]): number | undefined {
  const fitted = points.filter(([n]) => n >= FIT_FROM);
  if (fitted.length === 0) return undefined;
  return Math.exp(fitted.reduce((sum, [n, t]) => sum + Math.log(t / n ** 2), 0) / fitted.length);
}
