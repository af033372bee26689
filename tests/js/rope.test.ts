import { describe, expect, it } from 'vitest';
import { fromRows } from '../../web/src/math/matrix';
import { degrees, longestPair, pairAngles, pairPoint, ROPE_DEMO, ropeDemoInputs, wrapAngle } from '../../web/src/math/rope';

describe('the RoPE demonstration', () => {
  it('reads one vector at every position through W_Q = I, a signed permutation W_K, W_V = I', () => {
    const { n, d } = ROPE_DEMO;
    const inputs = ropeDemoInputs();
    expect([inputs.n, inputs.d, inputs.x.length, inputs.cAttnWeight.length]).toEqual([n, d, n * d, d * 3 * d]);
    expect(Array.from(inputs.x.subarray(0, d))).toEqual(Array.from(inputs.x.subarray((n - 1) * d)));
    // every column of [W_Q | W_K | W_V] has one entry ±1, and W_Q's and W_V's are on the diagonal
    for (let j = 0; j < 3 * d; j++) {
      const column = Array.from({ length: d }, (_, i) => inputs.cAttnWeight[i * 3 * d + j]!);
      expect(column.filter((v) => v !== 0).map(Math.abs)).toEqual([1]);
      if (j < d || j >= 2 * d) expect(column[j % d]).toBe(1);
    }
    expect(inputs.rope && !inputs.scaled).toBe(true);
  });
});

describe('the geometry of a rotated pair', () => {
  it('wraps angles into (−π, π] and turns them into degrees', () => {
    expect(wrapAngle(3 * Math.PI / 2)).toBeCloseTo(-Math.PI / 2);
    expect(wrapAngle(-Math.PI / 4)).toBeCloseTo(-Math.PI / 4);
    expect(degrees(Math.PI)).toBe(180);
  });
  it('finds where a pair points and how far apart two are', () => {
    // the query's pair 1 turns by 90° a position; the key's pair 1 points along y
    const q = fromRows([[0, 0, 1, 0], [0, 0, 0, 1], [0, 0, -1, 0]]);
    const k = fromRows([[0, 0, 0, 2], [0, 0, 0, 2], [0, 0, 0, 2]]);
    expect(pairPoint(q, 1, 1)).toEqual([0, 1]);
    const { from, between, perPosition } = pairAngles(q, k, 1, 2, 0);
    expect(degrees(from)).toBeCloseTo(180);
    expect(degrees(between)).toBeCloseTo(-90);
    expect(degrees(perPosition)).toBeCloseTo(90);
    expect(longestPair(q, k)).toBe(2);
  });
});
