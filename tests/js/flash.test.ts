import { describe, expect, it } from 'vitest';
import {
  FIT_FROM, fittedSlope, normalisersFromWeights, rowMaxima, rowsAfter, squareThroughMiddle, sweepPlan, sweepShare, tileCount, timingOptions,
} from '../../web/src/math/flash';

/** tiles of 2 query rows: block 0 sees keys in two blocks, block 1 one so far */
const TILES = [
  { queryBlock: 0, keyBlock: 0, runningMax: Float32Array.of(1, 2), runningSum: Float32Array.of(1.5, 1) },
  { queryBlock: 0, keyBlock: 1, runningMax: Float32Array.of(3, 2), runningSum: Float32Array.of(1.2, 2) },
  { queryBlock: 1, keyBlock: 0, runningMax: Float32Array.of(0.5), runningSum: Float32Array.of(1) },
];

describe('flash attention tiles', () => {
  it('counts ⌈n/B_r⌉·⌈n/B_c⌉ tiles', () => {
    expect(tileCount(12, 4, 4)).toBe(9);
    expect(tileCount(10, 4, 3)).toBe(12);
    expect(tileCount(2, 8, 8)).toBe(1);
  });

  it('gives each row its latest m and ℓ, and the rescale factor where the last tile raised the max', () => {
    const none = rowsAfter(TILES, 0, 3, 2);
    expect(none.map((r) => [r.max, r.sum, r.current])).toEqual([[-Infinity, 0, false], [-Infinity, 0, false], [-Infinity, 0, false]]);

    const first = rowsAfter(TILES, 1, 3, 2);
    expect(first.map((r) => r.max)).toEqual([1, 2, -Infinity]);
    expect(first.map((r) => r.current)).toEqual([true, true, false]);
    // a row's first tile starts its max: nothing to rescale yet
    expect(first.map((r) => r.rescale)).toEqual([undefined, undefined, undefined]);

    const second = rowsAfter(TILES, 2, 3, 2);
    expect(second[0].max).toBe(3);
    expect(second[0].sum).toBeCloseTo(1.2, 6);
    expect(second[0].rescale).toBeCloseTo(Math.exp(1 - 3), 12);
    expect(second[1].rescale).toBeUndefined();

    const third = rowsAfter(TILES, 3, 3, 2);
    expect(third.map((r) => r.current)).toEqual([false, false, true]);
    expect(third[0].rescale).toBeUndefined();
    expect(third[2].max).toBe(0.5);
    expect(rowsAfter(TILES, 99, 3, 2)).toEqual(third);
  });

  it('reads row maxima and softmax normalisers off a matrix', () => {
    const scores = { rows: 2, cols: 3, data: Float32Array.of(1, 3, 2, -1, -2, -0.5) };
    expect(rowMaxima(scores)).toEqual([3, -0.5]);
    const weights = { rows: 1, cols: 3, data: Float32Array.from([1, 3, 2].map((s) => Math.exp(s - 3))) };
    const sum = weights.data.reduce((a, b) => a + b, 0);
    weights.data.forEach((w, j) => { weights.data[j] = w / sum; });
    expect(normalisersFromWeights(weights)[0]).toBeCloseTo(sum, 5);
  });
});

describe('the n sweep', () => {
  it('doubles n, running naive only up to its longest', () => {
    const plan = sweepPlan(2048, 1024);
    expect(plan.map((p) => `${p.kernel} ${p.n}`)).toEqual([
      'flash 256', 'naive 256', 'flash 512', 'naive 512', 'flash 1024', 'naive 1024', 'flash 2048',
    ]);
  });

  it('weighs each point by n² for the progress bar', () => {
    const plan = sweepPlan(512, 512);
    expect(sweepShare(plan, () => false)).toBe(0);
    expect(sweepShare(plan, (p) => p.n === 256)).toBeCloseTo(0.2, 12);
    expect(sweepShare(plan, () => true)).toBe(1);
    expect(sweepShare([], () => false)).toBe(1);
  });

  it('repeats and warms up the short calls only', () => {
    expect(timingOptions(FIT_FROM / 2)).toEqual({ repeats: 3, minMs: 60, warmUp: true });
    expect(timingOptions(FIT_FROM)).toEqual({ repeats: 1, minMs: 0, warmUp: false });
  });

  it('fits the slope from n = FIT_FROM on, where the n² shows', () => {
    // below FIT_FROM a fixed cost hides the n²
    const times = [256, 512, 1024, 2048, 4096].map((n): [number, number] => [n, n < FIT_FROM ? 5 : 3e-6 * n ** 2]);
    expect(fittedSlope(times)).toBeCloseTo(2, 9);
    expect(fittedSlope(times.slice(0, 3))).toBeUndefined();
  });

  it('draws c·n² through the middle of the fitted points', () => {
    const c = squareThroughMiddle([[512, 99], [1024, 2], [2048, 8 * 1.21]])!;
    // the geometric mean of t/n² over n ≥ FIT_FROM: 2/1024² and 1.21·2/1024²
    expect(c).toBeCloseTo(Math.sqrt(1.21) * 2 / 1024 ** 2, 15);
    expect(squareThroughMiddle([[256, 1], [512, 2]])).toBeUndefined();
  });
});
